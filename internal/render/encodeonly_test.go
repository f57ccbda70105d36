package render_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/secrets"
	"github.com/talops/talops/internal/testlab"
)

func TestRender_EncodeOnlyKeepsEachNodesBytesAndDropsItsConfig(t *testing.T) {
	c := testlab.Load(t, testlab.Files(t))

	b, err := (&secrets.Loader{Getenv: testlab.NoEnv, Now: time.Now}).Load(c)
	if err != nil {
		t.Fatal(err)
	}

	ids, err := render.SchematicIDs(c)
	if err != nil {
		t.Fatal(err)
	}

	opts := render.Options{Installer: render.FactoryInstaller(ids)}
	whole := render.All(context.Background(), c, b, opts)

	opts.EncodeOnly = true
	lean := render.All(context.Background(), c, b, opts)

	for i, r := range lean {
		if r.Err != nil || whole[i].Err != nil {
			t.Fatalf("node %s: %v, %v", r.Name, r.Err, whole[i].Err)
		}

		if r.Machine.Config != nil || r.Machine.Layers != nil {
			t.Errorf("node %s: EncodeOnly kept the decoded config or its layers", r.Name)
		}

		got, _ := r.Machine.Bytes()
		want, _ := whole[i].Machine.Bytes()

		if !bytes.Equal(got, want) {
			t.Errorf("node %s: its bytes under EncodeOnly differ from the whole render's", r.Name)
		}
	}
}

// A node's own patch is loaded without its index when only the encoding is kept: what
// the node renders to, and every error it fails with, must be the same.
func TestRender_EncodeOnlyFailsAsTheWholeRenderDoes(t *testing.T) {
	patches := map[string]string{
		"as it is":                  "",
		"empty":                     "\n",
		"comments only":             "# nothing\n",
		"empty documents":           "---\n# nothing\n---\n",
		"malformed":                 "machine:\n  nodeLabels: [a\n",
		"unknown key":               "machine:\n  nodeLabelz:\n    a: b\n",
		"unknown key in a document": "apiVersion: v1alpha1\nkind: HostnameConfig\nhostnam: x\n",
		"wrong type":                "machine:\n  kubelet:\n    extraArgs: [a]\n",
		"name with a line break":    "machine:\n  sysctls:\n    a: \"1\"\n---\napiVersion: v1alpha1\nkind: UserVolumeConfig\nname: \"data\\n<!--\"\nprovisioning:\n  diskSelector:\n    match: system_disk\n",
		"name with a tab":           "apiVersion: v1alpha1\nkind: UserVolumeConfig\nname: \"da\\tta\"\nprovisioning:\n  diskSelector:\n    match: system_disk\n",
		"RFC 6902":                  "- op: add\n  path: /machine/nodeLabels/zone\n  value: rack1\n",
		"RFC 6902 that fails":       "- op: replace\n  path: /machine/nope/x\n  value: 1\n",
		"RFC 6902 and a document":   "- op: add\n  path: /machine/sysctls/a\n  value: \"1\"\n---\napiVersion: v1alpha1\nkind: HostnameConfig\nhostname: x\n",
	}

	for name, patch := range patches {
		t.Run(name, func(t *testing.T) {
			files := testlab.Files(t)
			if patch != "" {
				files["nodes/k8s-node1.yaml"] = []byte(patch)
			}

			c := testlab.Load(t, files)

			b, err := (&secrets.Loader{Getenv: testlab.NoEnv, Now: time.Now}).Load(c)
			if err != nil {
				t.Fatal(err)
			}

			whole := render.All(context.Background(), c, b, render.Options{})
			lean := render.All(context.Background(), c, b, render.Options{EncodeOnly: true})

			for i, r := range lean {
				if (r.Err == nil) != (whole[i].Err == nil) || r.Err != nil && r.Err.Error() != whole[i].Err.Error() {
					t.Fatalf("node %s: EncodeOnly fails with %v, the whole render with %v", r.Name, r.Err, whole[i].Err)
				}

				if r.Err != nil {
					continue
				}

				got, _ := r.Machine.Bytes()
				want, _ := whole[i].Machine.Bytes()

				if !bytes.Equal(got, want) {
					t.Errorf("node %s: its bytes under EncodeOnly differ from the whole render's", r.Name)
				}
			}

			if name != "as it is" && whole[1].Err == nil && !strings.Contains(name, "RFC 6902") {
				t.Fatalf("the patch %q renders: the case tests nothing", name)
			}
		})
	}
}
