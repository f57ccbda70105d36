package schematic_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/talops/talops/internal/schematic"
)

const opaqueTestID = "44186a005dfca322f81df634a457384455475fbfa518777f3ee58d35f173d73b"

func TestOpaque_FileHoldingOnlyTheIDGivesIt(t *testing.T) {
	for _, src := range []string{
		"id: " + opaqueTestID + "\n",
		"# recovered later\nid: '" + opaqueTestID + "' # the installer's ID\n",
		"{id: " + opaqueTestID + "}",
	} {
		id, ok := schematic.Opaque([]byte(src))
		if !ok || id != opaqueTestID {
			t.Errorf("Opaque(%q) = %q, %v; want the ID", src, id, ok)
		}

		_, err := schematic.Load([]byte(src))

		var oe *schematic.OpaqueError
		if !errors.As(err, &oe) || oe.ID != opaqueTestID {
			t.Errorf("Load(%q) = %v; want an *OpaqueError of the ID", src, err)
		}
	}
}

func TestOpaque_SchematicWithContentIsNotOpaque(t *testing.T) {
	for _, src := range []string{"customization: {}\n", "{}", "- id\n", "id\n"} {
		if id, ok := schematic.Opaque([]byte(src)); ok {
			t.Errorf("Opaque(%q) = %q, true; want not opaque", src, id)
		}
	}
}

func TestLoad_IDWithOtherKeysOrBadIDIsOneLineErrorAtItsLine(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		line      int
		mentions  string
	}{
		{"another key beside id", "id: " + opaqueTestID + "\ncustomization: {}\n", 2, `"customization" beside id`},
		{"id after content", "customization: {}\n# note\nid: " + opaqueTestID + "\n", 1, "holds nothing else"},
		{"upper-case ID", "id: " + strings.ToUpper(opaqueTestID) + "\n", 1, "64 lower-case hexadecimal digits"},
		{"short ID", "# opaque\nid: 3765\n", 2, `id "3765" is not a schematic ID`},
		{"ID as a list", "id:\n  - " + opaqueTestID + "\n", 2, "not a schematic ID"},
		{"id twice", "id: " + opaqueTestID + "\nid: " + opaqueTestID + "\n", 2, "id given twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, ok := schematic.Opaque([]byte(tc.src)); ok {
				t.Fatalf("Opaque accepted %q", tc.src)
			}

			_, err := schematic.Load([]byte(tc.src))

			var de *schematic.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("Load(%q) = %v; want a *DecodeError", tc.src, err)
			}

			if de.Line != tc.line || !strings.Contains(de.Msg, tc.mentions) || strings.Contains(err.Error(), "\n") {
				t.Errorf("Load(%q) = %q at line %d; want one line mentioning %q at line %d", tc.src, err, de.Line, tc.mentions, tc.line)
			}
		})
	}
}
