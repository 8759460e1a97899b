package e2e

import (
	"testing"

	"github.com/journalship/journalship/internal/pagecache"
)

// dropPages evicts the journals under root from the page cache, as
// Fluent Bit's tail does before each read of a file (File_Cache_Advise,
// on by default): the plugin's checks that a file still holds the lines
// read then go to the disk, as they do inside Fluent Bit.
func dropPages(b *testing.B, root string) {
	b.Helper()
	if err := pagecache.Drop(root); err != nil {
		b.Fatal(err)
	}
}
