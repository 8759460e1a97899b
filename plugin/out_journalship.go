// Command out_journalship is the cgo shim that turns package output into a
// Fluent Bit Go output plugin (`Name journalship`). It is the only cgo file
// of the project: it converts C types and calls into package output, nothing
// more. Build it with
//
//	go build -buildmode=c-shared -o bin/out_journalship.so ./plugin
//
// # How Fluent Bit drives it
//
// Read from fluent/fluent-bit src/flb_plugin_proxy.c, src/proxy/go/go.c and
// go.h (unchanged in this respect from v2.0.7 to the 2026 master):
//
//  1. Load: dlopen(path, RTLD_LAZY); FLBPluginPreRegister(hot_reloading) if
//     exported (v2.2+, we do not export it); then FLBPluginRegister(def) once
//     per loaded .so, def a zeroed struct flb_plugin_proxy_def. Fluent Bit
//     then looks up FLBPluginInit (required), FLBPluginFlush,
//     FLBPluginFlushCtx, FLBPluginExit and FLBPluginExitCtx (optional).
//  2. Init, once per [OUTPUT] section, serially at start-up:
//     FLBPluginInit(plugin), plugin a struct flbgo_output_plugin{name, api,
//     o_ins, context}. ONE such struct exists per loaded .so: o_ins and
//     context are overwritten before each instance's init, so properties
//     can only be read during FLBPluginInit, and the per-instance context
//     must go into context->remote_context (FLBPluginSetContext does that).
//     A return <= 0 (FLB_ERROR) fails the instance and Fluent Bit's start.
//  3. Flush: FLBPluginFlushCtx(remote_context, data, size_t size, tag) when
//     FLBPluginFlushCtx is exported, else FLBPluginFlush(data, size, tag).
//     data is the chunk's msgpack buffer and tag a NUL-terminated copy that
//     Fluent Bit frees right after the call; neither outlives the call.
//     With `Workers` > 0, flushes of one instance run concurrently on
//     several threads. A return other than 0/1/2 is treated as FLB_ERROR.
//  4. Exit, per instance at shutdown (flb_output_exit):
//     FLBPluginOutputPreExit(shutdown_by_hot_reloading) if exported (we do
//     not), then FLBPluginExitCtx(remote_context) when exported, and ONLY
//     OTHERWISE FLBPluginExit(). Modern Fluent Bit therefore never calls
//     FLBPluginExit for this plugin. remote_context is NULL for an instance
//     whose FLBPluginInit failed or never ran. Before v2.0.7 every
//     instance's exit passed the LAST initialised instance's context, so
//     FLBPluginExitCtx must be idempotent per context.
//  5. Unload, once per .so after every instance exited (plugin cb_destroy):
//     FLBPluginUnregister(def), then dlclose. A Go c-shared library is
//     linked -z nodelete, so the runtime stays mapped; a hot reload runs
//     the whole sequence again in the same process.
//
// # Panics
//
// A Go panic unwinding into Fluent Bit's C frames would end Fluent Bit and
// every other output of the node. Each exported function therefore runs
// its body in output.Guard, which logs and counts a panic and answers
// what Fluent Bit takes as a failure of that call; the instance's own
// methods recover first where they know better (see Instance.Flush).
package main

/*
#include <stdlib.h>
*/
import "C"

import (
	"log"
	"os"
	"sync"
	"sync/atomic"
	"unsafe"

	flb "github.com/fluent/fluent-bit-go/output"

	"github.com/journalship/journalship/output"
)

// handle is what FLBPluginSetContext stores for one instance. fluent-bit-go
// never forgets a context, so the instance is dropped from the handle on
// exit to let it be collected; a flush after exit then finds no instance.
type handle struct {
	inst atomic.Pointer[output.Instance]
}

// generation guards output.Shutdown so it runs once per Register, whether
// Fluent Bit ends with FLBPluginUnregister (v1.9+) or FLBPluginExit (old
// versions without FlushCtx/ExitCtx support) or both.
var generation struct {
	sync.Mutex
	live bool
}

// FLBPluginRegister is called once per loaded .so, before any init.
//
//export FLBPluginRegister
func FLBPluginRegister(def unsafe.Pointer) C.int {
	return C.int(output.Guard(output.EntryRegister, -1, func() int {
		generation.Lock()
		generation.live = true
		generation.Unlock()
		output.UseOneProc(os.Getenv)
		return flb.FLBPluginRegister(def, output.PluginName, output.PluginDescription)
	}))
}

// FLBPluginInit builds one instance from its [OUTPUT] properties. The
// getter is only valid during this call (see step 2 above).
//
//export FLBPluginInit
func FLBPluginInit(plugin unsafe.Pointer) C.int {
	return C.int(output.Guard(output.EntryInit, output.Error, func() int {
		inst, err := output.NewInstance(func(key string) string {
			return flb.FLBPluginConfigKey(plugin, key)
		})
		if err != nil {
			log.Printf("[%s] init: %v", output.PluginName, err)
			return output.Error
		}
		h := &handle{}
		h.inst.Store(inst)
		flb.FLBPluginSetContext(plugin, h)
		return output.OK
	}))
}

// FLBPluginFlush is the pre-FlushCtx entry point (Fluent Bit < 1.1). It has
// no instance context, so it refuses the chunk.
//
//export FLBPluginFlush
func FLBPluginFlush(data unsafe.Pointer, length C.size_t, tag *C.char) C.int {
	return C.int(output.Guard(output.EntryLegacyFlush, output.Error, func() int {
		log.Printf("[%s] this Fluent Bit calls FLBPluginFlush without an instance context; use a Fluent Bit that calls FLBPluginFlushCtx (v1.4 or later)", output.PluginName)
		return output.Error
	}))
}

// FLBPluginFlushCtx hands one chunk to its instance. The buffer is
// borrowed, not copied: package output only uses it during the call.
// Instance.Flush handles its own panics (Retry, then the dead-letter file
// for a chunk that keeps panicking); one here answers Retry.
//
//export FLBPluginFlushCtx
func FLBPluginFlushCtx(ctx, data unsafe.Pointer, length C.size_t, tag *C.char) C.int {
	return C.int(output.Guard(output.EntryFlush, output.Retry, func() int {
		inst := instanceOf(ctx)
		if inst == nil {
			// FLB_ERROR would make Fluent Bit drop the chunk; a retry keeps
			// it in storage for an instance that can ship it.
			log.Printf("[%s] flush: unknown or closed instance context %p; asking for a retry", output.PluginName, ctx)
			return output.Retry
		}
		var buf []byte
		if data != nil {
			buf = unsafe.Slice((*byte)(data), int(length))
		}
		return inst.Flush(buf, C.GoString(tag))
	}))
}

// FLBPluginExitCtx closes one instance and frees the byte that
// FLBPluginSetContext allocated as its context key.
//
//export FLBPluginExitCtx
func FLBPluginExitCtx(ctx unsafe.Pointer) C.int {
	return C.int(output.Guard(output.EntryExit, output.Error, func() int { return exitCtx(ctx) }))
}

func exitCtx(ctx unsafe.Pointer) int {
	if ctx == nil { // init failed or never ran
		return output.OK
	}
	h, _ := flb.FLBPluginGetContext(ctx).(*handle)
	if h == nil {
		return output.OK
	}
	rc := output.OK
	if inst := h.inst.Swap(nil); inst != nil {
		if err := inst.Close(); err != nil {
			log.Printf("[%s] exit: %v", output.PluginName, err)
			rc = output.Error
		}
		C.free(ctx)
	}
	return rc
}

// FLBPluginExit is only called by Fluent Bit versions without ExitCtx
// support; it releases the per-process resources.
//
//export FLBPluginExit
func FLBPluginExit() C.int {
	return C.int(output.Guard(output.EntryLegacyExit, output.Error, shutdown))
}

// FLBPluginUnregister frees the registration strings and releases the
// per-process resources, once every instance has exited.
//
//export FLBPluginUnregister
func FLBPluginUnregister(def unsafe.Pointer) {
	output.Guard(output.EntryUnregister, output.Error, func() int {
		flb.FLBPluginUnregister(def)
		return shutdown()
	})
}

func instanceOf(ctx unsafe.Pointer) *output.Instance {
	if h, _ := flb.FLBPluginGetContext(ctx).(*handle); h != nil {
		return h.inst.Load()
	}
	return nil
}

func shutdown() int {
	generation.Lock()
	defer generation.Unlock()
	if !generation.live {
		return output.OK
	}
	generation.live = false
	if err := output.Shutdown(); err != nil {
		log.Printf("[%s] shutdown: %v", output.PluginName, err)
		return output.Error
	}
	return output.OK
}

func main() {}
