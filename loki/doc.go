// Package loki is a synchronous push client for Grafana Loki.
//
// It exists because the output plugin may only tell Fluent Bit FLB_OK once
// Loki has answered for every line of a chunk. A Batch groups entries into
// streams by their label set and is reused between flushes; Client.Push
// encodes it (protobuf, snappy) into requests of at most
// Config.MaxRequestBytes, sends them one after the other and returns only
// when each got an answer.
//
// Outcomes:
//
//   - 2xx: the request's entries are stored.
//   - 400: Loki stored the valid entries and refused the others; Push maps
//     Loki's error texts back to the refused entries (Result.Rejected, nil
//     error). A body it cannot map rejects every entry of that request, so a
//     refused entry is never silently taken as stored. An ingester's 400
//     names the refusals of one stream only; the other entries are sent
//     again to learn what that answer hid.
//   - 429, 5xx, 260, 401/403, 404, network failures and timeouts: a
//     *RetryableError; the caller sends the whole batch again (duplicates are
//     possible, loss is not).
//   - 413, 422 and other 4xx: a *PermanentError, the entries of that request
//     are listed in Result.Rejected.
package loki
