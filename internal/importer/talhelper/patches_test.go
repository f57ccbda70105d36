package talhelper_test

import (
	"testing"

	"go.yaml.in/yaml/v4"
)

// TestImport_InlinePatchIsWrittenAsTalhelperPassesIt: talhelper hands an inline patch's text
// to Talos unchanged, so a block scalar at its end keeps the line breaks it has there: a
// `|-` patch ending in a `|` value gives that value no trailing newline.
func TestImport_InlinePatchIsWrittenAsTalhelperPassesIt(t *testing.T) {
	for _, tc := range []struct {
		name, talconfig, want string
	}{
		{
			"a block scalar last in a |- patch has no trailing newline",
			head + "nodes:\n  - hostname: n1\n    ipAddress: 10.0.0.11\npatches:\n  - |-\n    machine:\n      files:\n        - path: /etc/motd\n          op: create\n          permissions: 0o644\n          content: |\n            hello\n",
			"hello",
		},
		{
			"a block scalar last in a | patch keeps its newline",
			head + "nodes:\n  - hostname: n1\n    ipAddress: 10.0.0.11\npatches:\n  - |\n    machine:\n      files:\n        - path: /etc/motd\n          op: create\n          permissions: 0o644\n          content: |\n            hello\n",
			"hello\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := importText(t, tc.talconfig, nil, nil)

			var got struct {
				Machine struct {
					Files []struct{ Content string }
				}
			}

			text := written(t, res, "patches/global-01.yaml")
			if err := yaml.Unmarshal([]byte(text), &got); err != nil {
				t.Fatalf("the patch: %v\n%s", err, text)
			}

			if len(got.Machine.Files) != 1 || got.Machine.Files[0].Content != tc.want {
				t.Fatalf("machine.files: want one file with content %q, got %+v in\n%s", tc.want, got.Machine.Files, text)
			}
		})
	}

}
