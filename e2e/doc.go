// Package e2e holds the end-to-end tests of the Fluent Bit plugin: they
// build the real c-shared library (plugin/) and the C host that loads it the
// way Fluent Bit's Go proxy does (tools/flbhost/), then drive the host with
// scripts and check what the plugin returns. It has no non-test code.
//
// Set JOURNALSHIP_PLUGIN and JOURNALSHIP_FLBHOST to use prebuilt artefacts
// (the Makefile points them at bin/), JOURNALSHIP_PLUGIN_VALGRIND to a
// plugin built with `-tags valgrind`, and JOURNALSHIP_REQUIRE_VALGRIND=1 to
// make the Valgrind test fail, rather than run without Valgrind, when the
// valgrind command is missing.
package e2e
