package registry

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/format"
)

// TestDescriptorsDeclareEverything: each registered format declares what
// the rest of journalship reads from its descriptor, builds with its
// defaults into a format of its name, and has a document.
func TestDescriptorsDeclareEverything(t *testing.T) {
	ds := Descriptors()
	require.NotEmpty(t, ds)
	orders := map[int]string{}
	for i, d := range ds {
		assert.NotEmpty(t, d.Name)
		assert.NotEmpty(t, d.Runtime, d.Name)
		if other, dup := orders[d.Order]; dup {
			t.Errorf("%s and %s share Order %d: detection order would depend on the list", d.Name, other, d.Order)
		}
		orders[d.Order] = d.Name
		if i > 0 {
			assert.Less(t, ds[i-1].Order, d.Order, "detection order")
		}
		_, err := os.Stat(filepath.Join("..", "..", d.Doc))
		assert.NoError(t, err, "%s: its document", d.Name)
		f, err := d.Build(nil, nil)
		require.NoError(t, err, d.Name)
		assert.Equal(t, d.Name, f.Name())
		for _, s := range d.Settings {
			assert.NotEmpty(t, s.Help, "%s: %s", d.Name, s.Name)
		}
		_, beside := f.(format.EndsBeside)
		assert.Equal(t, beside, d.End == format.EndBeside, "%s: End %s, and EndsBeside implemented: %v", d.Name, d.End, beside)
		assert.Equal(t, d.End, EndOf(d.Name))
		_, grouped := f.(format.GroupEnder)
		_, session := f.(format.SessionDir)
		assert.Equal(t, grouped, d.Unit == format.UnitDirectory, "%s: Unit %s, and GroupEnder implemented: %v", d.Name, d.Unit, grouped)
		assert.Equal(t, session, d.Unit == format.UnitSession, "%s: Unit %s, and SessionDir implemented: %v", d.Name, d.Unit, session)
	}
	assert.Equal(t, format.EndLine, EndOf(Unknown.Name()))
	var names []string
	for _, f := range All() {
		names = append(names, f.Name())
	}
	assert.Equal(t, names, Names()[:len(names)], "All and Names follow the descriptors")
	assert.True(t, slices.Contains(Names(), Unknown.Name()))
}

// TestFormatSettings: a format's setting reaches its format; a bad value
// and a setting no format owns are refused, naming them.
func TestFormatSettings(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Settings = format.Settings{"Known_Schema_Versions": "1, 2"}
	_, err := New(cfg)
	require.NoError(t, err)

	cfg.Settings = format.Settings{"Known_Schema_Versions": "1,x"}
	_, err = New(cfg)
	require.ErrorContains(t, err, "Known_Schema_Versions")

	cfg.Settings = format.Settings{"Known_Schema_Version": "1"}
	_, err = New(cfg)
	require.ErrorContains(t, err, "Known_Schema_Version")
}
