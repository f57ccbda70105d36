package render_test

import (
	"bytes"
	"context"
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
