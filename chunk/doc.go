// Package chunk decodes the msgpack chunks Fluent Bit hands to a Go output
// plugin's FLBPluginFlushCtx(ctx, data, length, tag), straight from the byte
// buffer: no copies, no reflection, no per-record allocation. It uses only the
// low-level byte functions of github.com/tinylib/msgp/msgp.
//
// A chunk is a concatenation of events. Two layouts are accepted:
//
//	Fluent Bit >= 2.1:  [[time, metadata_map], record_map]
//	older:              [time, record_map]
//
// The time is an EventTime (msgpack ext type 0, 8 bytes: big-endian uint32
// seconds then uint32 nanoseconds), an integer (seconds) or, for tolerance, a
// float (seconds). From the record map the decoder extracts three configurable
// keys (log, path, offset) and skips everything else, including the metadata
// map. Group markers (EventTime seconds 0xFFFFFFFF / 0xFFFFFFFE with zero
// nanoseconds, written by flb_log_event_encoder_group_init / _group_end and
// recognised by flb_log_event_decoder_decode_timestamp) carry no log record:
// they are validated and skipped, not passed to the callback, but they still
// count in Record.Index.
//
// # What Fluent Bit's tail input writes
//
// Read in github.com/fluent/fluent-bit at v4.2.8, v3.2.10, HEAD (5.1.x) and
// the parent of commit e73f328 (pre-2.1):
//
//   - plugins/in_tail/tail_file.c, flb_tail_file_pack_line (the plain-line
//     path, no parser, no multiline): the record map gets, in this order,
//     Path_Key -> file->orig_name (the name the file was first opened under,
//     kept across rotation) as str, then Offset_Key -> file->stream_offset +
//     processed_bytes as uint64, then Key (default "log") -> the line as
//     str, with the trailing "\r" of a CRLF removed and no "\n".
//   - process_content passes processed_bytes before adding the line's own
//     length, so the offset is the position of the line's first byte (it
//     already counts skipped leading NULs and skipped empty lines before
//     it). stream_offset is the raw file offset unless the file is
//     decompressed (then it is the offset in the decompressed stream); with
//     an input encoding configured, processed_bytes counts bytes of the
//     converted buffer, so offsets stop matching file positions. When a
//     Parser fails, the raw line is packed with its "\r" kept.
//   - the offset is written with msgpack_pack_uint64 (through
//     flb_log_event_encoder_append_body_uint64 / FLB_LOG_EVENT_UINT64_VALUE),
//     and msgpack-c's pack_template.h picks the smallest unsigned form:
//     positive fixint, uint8, uint16, uint32 or uint64. The decoder accepts
//     any msgpack integer.
//   - with a Parser, flb_tail_pack_line_map repacks the parsed fields first
//     and appends Path_Key then Offset_Key at the end (offset still the line
//     start). With multiline, record_append_custom_keys appends them the
//     same way but the offset is stream_offset + last_processed_bytes: the
//     end of the last line consumed, not the start of the record.
//   - the event itself comes from src/flb_log_event_encoder.c,
//     flb_log_event_encoder_emit_record (FLB_LOG_EVENT_FORMAT_DEFAULT is
//     FLUENT_BIT_V2). Through 4.x both arrays use array32 headers (0xdd)
//     and the metadata and body maps map32 headers (0xdf): src/flb_mp.c,
//     flb_mp_map_header_init / flb_mp_array_header_init reserve a 32-bit
//     header and patch the count at the end. Fluent Bit 5.0 added a
//     direct-emit path that writes fixarray headers (0x92 0x92) but keeps the
//     map32 maps. The time is always fixext8 type 0
//     (flb_log_event_encoder_append_forward_v1_timestamp). Before 2.1,
//     flb_tail_file_pack_line wrote [time, fixmap] with msgpack_pack_array(2)
//     and msgpack_pack_map(n), same key order.
//
// When a key occurs more than once in a record (a parsed field named like
// Path_Key, say), the last occurrence wins, because tail appends its own keys
// after any parsed ones.
//
// encode.go reproduces these layouts byte for byte (AppendEvent, TailEvent)
// for tests, the C-host end-to-end test and the CLI.
package chunk
