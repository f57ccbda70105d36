package importer_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/importer"
)

func TestRepoFinish_WritesTalopsYAMLFirstAndNamesTheSchematicsAdded(t *testing.T) {
	t.Parallel()

	var r importer.Repo
	if err := r.Add("patches/a.yaml", []byte("machine: {}\n")); err != nil {
		t.Fatal(err)
	}

	if err := r.AddSchematic("gpu", []byte("customization: {}\n")); err != nil {
		t.Fatal(err)
	}

	spec := cluster.Spec{
		Cluster: cluster.Meta{Name: "lab", Endpoint: "https://10.0.0.1:6443"}, TalosVersion: "v1.13.8", KubernetesVersion: "v1.35.0",
		Nodes: []cluster.Node{{Name: "cp1", Address: "10.0.0.1", Role: cluster.RoleControlPlane, Schematic: "gpu"}},
	}

	res, err := r.Finish(spec, "talhelper")
	if err != nil {
		t.Fatal(err)
	}

	var paths []string
	for _, f := range res.Files {
		paths = append(paths, f.Path)
	}

	if want := []string{cluster.FileName, "patches/a.yaml", "schematics/gpu.yaml"}; !slices.Equal(paths, want) {
		t.Fatalf("files %v, want %v", paths, want)
	}

	talops := string(res.Files[0].Data)
	for _, want := range []string{"# Imported from talhelper", "gpu: schematics/gpu.yaml", "configVersion:"} {
		if !strings.Contains(talops, want) {
			t.Errorf("talops.yaml lacks %q:\n%s", want, talops)
		}
	}

	if res.Cluster != "lab" || res.TalosVersion != "v1.13.8" {
		t.Errorf("cluster %q, talosVersion %q", res.Cluster, res.TalosVersion)
	}
}

func TestRepoAdd_RefusesTwoContentsForOnePath(t *testing.T) {
	t.Parallel()

	var r importer.Repo
	if err := r.Add("a.yaml", []byte("a: 1\n")); err != nil {
		t.Fatal(err)
	}

	if err := r.Add("a.yaml", []byte("a: 1\n")); err != nil {
		t.Errorf("the same contents again: %v", err)
	}

	if err := r.AddSchematic("a", []byte("x")); err != nil {
		t.Fatal(err)
	}

	if err := r.AddSchematic("a", []byte("y")); err == nil {
		t.Error("two contents for schematics/a.yaml were accepted")
	}
}

func TestRepoReportOnce_SaysAProblemOnceAtTheFirstNode(t *testing.T) {
	t.Parallel()

	r := importer.Repo{Source: "topf.yaml"}
	f := finding.Finding{Severity: finding.Warning, Code: importer.CodeUnsupported, File: "all/a.yaml", Message: "m"}

	for _, node := range []string{"n1", "n2"} {
		f.Node = node
		r.ReportOnce(f)
	}

	r.Unsupported(3, "n1", "x", "not imported")

	res, err := r.Finish(cluster.Spec{TalosVersion: "v1.13.8"}, "topf")
	if err != nil {
		t.Fatal(err)
	}

	want := []finding.Finding{
		{Severity: finding.Warning, Code: importer.CodeUnsupported, File: "all/a.yaml", Node: "n1", Message: "m"},
		{Severity: finding.Warning, Code: importer.CodeUnsupported, File: "topf.yaml", Line: 3, Node: "n1", Path: "x", Message: "not imported"},
	}
	if !slices.Equal(res.Findings, want) {
		t.Errorf("findings %+v\nwant %+v", res.Findings, want)
	}
}

func TestCleanRel_KeepsPathsInsideTheSourceDirectory(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		in, want string
		refused  bool
	}{
		{in: "./patches/a.yaml", want: "patches/a.yaml"},
		{in: "patches/../b.yaml", want: "b.yaml"},
		{in: "../b.yaml", refused: true},
		{in: "..", refused: true},
		{in: "/etc/passwd", refused: true},
	} {
		got, err := importer.CleanRel(tc.in, "the talconfig's directory")
		if tc.refused {
			if err == nil || err.Error() != "outside the talconfig's directory" {
				t.Errorf("%s: %q, %v; want refused", tc.in, got, err)
			}

			continue
		}

		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestEncodeDocs_WritesOneStreamUnderTheComment(t *testing.T) {
	t.Parallel()

	got, err := importer.EncodeDocs("# head", []any{map[string]any{"a": map[string]any{"b": 1}}, map[string]any{"c": 2}})
	if err != nil {
		t.Fatal(err)
	}

	if want := "# head\na:\n  b: 1\n---\nc: 2\n"; string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestLocate_FilesOutsideTheSourceDirectoryComeFromTheRepositoryUnderShared(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		name, in, within, read, out, refused string
	}{
		{name: "inside the directory keeps its path", in: "./patches/a.yaml", within: "home", read: "patches/a.yaml", out: "patches/a.yaml"},
		{name: "beside it in the repository goes under shared", in: "../global/kubelet.yaml", within: "home", read: "../global/kubelet.yaml", out: "shared/global/kubelet.yaml"},
		{name: "deeper directories keep the layout from the root", in: "../../global/x/y.yaml", within: "clusters/home", read: "../../global/x/y.yaml", out: "shared/global/x/y.yaml"},
		{name: "out of the repository is refused", in: "../../x.yaml", within: "home", refused: "../../x.yaml is outside the Git repository holding the talconfig's directory"},
		{name: "out of a directory at the root is refused", in: "../x.yaml", within: ".", refused: "../x.yaml is outside the Git repository holding the talconfig's directory"},
		{name: "without a repository the directory is the boundary", in: "../x.yaml", refused: "../x.yaml is outside the talconfig's directory, and no Git repository holds it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			read, out, err := importer.Locate(tc.in, "the talconfig's directory", tc.within)
			if tc.refused != "" {
				var outside *importer.OutsideError
				if !errors.As(err, &outside) || err.Error() != tc.refused {
					t.Fatalf("got %q, %q, %v; want refused: %s", read, out, err, tc.refused)
				}

				return
			}

			if err != nil || read != tc.read || out != tc.out {
				t.Fatalf("got %q, %q, %v; want %q, %q", read, out, err, tc.read, tc.out)
			}
		})
	}
}
