package render_test

import (
	"strings"
	"testing"

	"github.com/siderolabs/talos/pkg/machinery/config/config"
	"github.com/siderolabs/talos/pkg/machinery/config/encoder"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/testlab"
)

// hostnameConfig is the node's HostnameConfig document.
func hostnameConfig(t *testing.T, m *render.Machine) config.Document {
	t.Helper()

	for _, d := range m.Config.Documents() {
		if d.Kind() == "HostnameConfig" {
			return d
		}
	}

	t.Fatalf("%s has no HostnameConfig", m.Node.Name)

	return nil
}

// Workers made from the same patches but their own hostname hold one v1alpha1 document
// between them, each its own HostnameConfig; a control plane's differs and is its own.
// What each node renders is what it renders alone.
func TestAll_NodesShareTheDocumentsTheyRenderAlike(t *testing.T) {
	t.Parallel()

	files := testlab.Scaled(t, 8)
	rs := renderLab(t, files)

	w1, w2, cp := node(t, rs, "node-03"), node(t, rs, "node-04"), node(t, rs, "node-00")

	if w1.Config.RawV1Alpha1() != w2.Config.RawV1Alpha1() {
		t.Error("two workers alike but their hostname each hold their own v1alpha1 document")
	}

	if cp.Config.RawV1Alpha1() == w1.Config.RawV1Alpha1() {
		t.Error("a control plane and a worker share their v1alpha1 document")
	}

	if hostnameConfig(t, w1) == hostnameConfig(t, w2) {
		t.Error("two nodes of different hostnames share their HostnameConfig")
	}

	for _, m := range []*render.Machine{w1, w2} {
		if got := encoded(t, m); !strings.Contains(got, "hostname: "+m.Node.Name+"\n") {
			t.Errorf("%s renders without its own hostname:\n%s", m.Node.Name, got)
		}
	}

	// Rendered alone, with nothing to share with, each node renders the same bytes.
	c := testlab.Load(t, files)
	for _, m := range []*render.Machine{w1, w2, cp} {
		alone := renderOne(t, c, m.Node.Name)
		if got, want := encoded(t, m), encoded(t, alone); got != want {
			t.Errorf("%s renders otherwise beside the others than alone", m.Node.Name)
		}
	}
}

// renderOne renders the node named name of c on its own (render.One: no other node to
// share documents with).
func renderOne(t *testing.T, c *cluster.Cluster, name string) *render.Machine {
	t.Helper()

	b, opts := labInputs(t, c)

	for _, n := range c.Spec.Nodes {
		if n.Name == name {
			m, err := render.One(c, b, n, opts)
			if err != nil {
				t.Fatal(err)
			}

			return m
		}
	}

	t.Fatalf("no node %s", name)

	return nil
}

// A config whose documents are shared encodes to what machinery encodes it to, the
// documents encoded once for every node that holds them: on the reference lab (every kind
// of node it has) and a scaled one.
func TestAll_SharedDocumentsEncodeAsMachineryEncodesTheConfig(t *testing.T) {
	t.Parallel()

	for name, files := range map[string]cluster.MapFiles{"reference": testlab.Files(t), "scaled": testlab.Scaled(t, 12)} {
		for _, r := range renderLab(t, files) {
			if r.Err != nil {
				t.Fatalf("%s: render %s: %v", name, r.Name, r.Err)
			}

			want, err := r.Machine.Config.EncodeBytes(encoder.WithComments(encoder.CommentsDisabled))
			if err != nil {
				t.Fatal(err)
			}

			if got := encoded(t, r.Machine); got != string(want) {
				t.Errorf("%s: %s encodes otherwise than machinery encodes it:\n%s\nwant:\n%s", name, r.Name, got, want)
			}
		}
	}
}
