package images_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/images"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/testlab"
)

// mixedLab is the reference lab on a metal cluster whose last worker is a nocloud VM,
// named on its own line: platform: nocloud.
func mixedLab(t *testing.T, nodePlatform string) *cluster.Cluster {
	t.Helper()

	files := testlab.Files(t)
	testlab.Edit(t, files, "talops.yaml", "platform: nocloud\n", "platform: metal\n")
	testlab.Edit(t, files, "talops.yaml", "    patches: [nodes/k8s-node4.yaml]\n", "    patches: [nodes/k8s-node4.yaml]\n    platform: "+nodePlatform+"\n")

	return testlab.Load(t, files)
}

func TestOf_ANocloudNodeBesideMetalOnesGetsTheNocloudInstallerAndBootImages(t *testing.T) {
	c := mixedLab(t, "nocloud")

	ids, err := render.SchematicIDs(c)
	if err != nil {
		t.Fatal(err)
	}

	s, err := images.Of(c, ids)
	if err != nil {
		t.Fatal(err)
	}

	if s.Platform != "metal" {
		t.Errorf("cluster platform = %q, want metal", s.Platform)
	}

	for _, n := range s.Nodes {
		want, platform := "metal", ""
		if n.Name == "k8s-node4" {
			want, platform = "nocloud", "nocloud"
		}

		if n.Platform != platform {
			t.Errorf("%s: platform = %q, want %q (set only where it is not the cluster's)", n.Name, n.Platform, platform)
		}

		if !strings.Contains(n.Installer, "/"+want+"-installer/") {
			t.Errorf("%s: installer %s, want the %s installer", n.Name, n.Installer, want)
		}

		if !strings.HasSuffix(n.ISO, "/"+want+"-amd64.iso") {
			t.Errorf("%s: ISO %s, want the %s ISO", n.Name, n.ISO, want)
		}
	}
}

func TestBootISOs_EachProxmoxNodeBootsTheISOOfItsOwnPlatform(t *testing.T) {
	isos, err := images.BootISOs(mixedLab(t, "nocloud"))
	if err != nil {
		t.Fatal(err)
	}

	got := map[string]string{}

	for _, iso := range isos {
		for _, n := range iso.Nodes {
			got[n] = iso.File
		}
	}

	for _, n := range []string{"k8s-master", "k8s-node1", "k8s-node2", "k8s-node3", "k8s-node4"} {
		want := "-metal-amd64.iso"
		if n == "k8s-node4" {
			want = "-nocloud-amd64.iso"
		}

		if !strings.HasSuffix(got[n], want) {
			t.Errorf("%s boots %q, want a file ending %s", n, got[n], want)
		}
	}
}

func TestBootISOs_ANodePlatformWithoutAnISOIsRefusedAtTheNodesPlatform(t *testing.T) {
	_, err := images.BootISOs(mixedLab(t, "aws"))

	var ie *cluster.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("error %v, want an *InputError", err)
	}

	want := "examples/homelab/talops.yaml:55: nodes[4].platform: node k8s-node4: the Image Factory builds no amd64 ISO for platform aws"
	if err.Error() != want {
		t.Errorf("error\n%s\nwant\n%s", err, want)
	}
}
