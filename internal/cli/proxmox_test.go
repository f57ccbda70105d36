package cli_test

import (
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/images"
	"github.com/talops/talops/internal/proxmox"
	"github.com/talops/talops/internal/proxmox/proxmoxtest"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/schematic"
	"github.com/talops/talops/internal/testlab"
)

var pveToken = proxmoxtest.Token{ID: "talops@pve!ci", Secret: "9e3c5a1f-2b7d-4e8a-b6c0-d4f1a2e3c5b7"}

// proxmoxLab is the reference lab with a proxmox: section pointing at srv (trusting its
// CA through caFile) and k8s-node4 moved to a second Proxmox node, pve2.
func proxmoxLab(t *testing.T, srv *proxmoxtest.Server) cluster.MapFiles {
	t.Helper()

	files := testlab.Files(t)
	testlab.Edit(t, files, "talops.yaml", "nodes:\n", "proxmox:\n  url: "+srv.URL()+"\n  storage: local\n  caFile: pve-ca.pem\nnodes:\n")
	testlab.Edit(t, files, "talops.yaml", "{node: pve, vmid: 204}", "{node: pve2, vmid: 204}")
	files["pve-ca.pem"] = srv.CAPEM()

	return files
}

func proxmoxHarness(t *testing.T, files cluster.MapFiles, tok proxmoxtest.Token) *harness {
	t.Helper()

	// PROXMOX_URL pins the API talops.yaml names, as the apply workflow sets it (the file
	// may be one a test breaks on purpose: it is not loaded).
	pinned := ""
	if m := regexp.MustCompile(`(?m)^  url: (\S+)$`).FindSubmatch(files["talops.yaml"]); m != nil {
		pinned = string(m[1])
	}

	h := newHarness(t, files, map[string]string{cli.EnvProxmoxTokenID: tok.ID, cli.EnvProxmoxTokenSecret: tok.Secret, cli.EnvProxmoxURL: pinned})
	h.deps.Proxmox = func(cfg proxmox.Config) (proxmox.API, error) {
		cfg.PollInterval = time.Millisecond

		c, err := proxmox.New(cfg)
		if err != nil {
			return nil, err
		}

		return c, nil
	}

	t.Cleanup(func() {
		for name, out := range map[string]string{"stdout": h.stdout.String(), "stderr": h.stderr.String()} {
			if strings.Contains(out, pveToken.Secret) {
				t.Errorf("the token secret appears on %s:\n%s", name, out)
			}
		}
	})

	return h
}

// labISOs are the ISO names of the lab's two schematics, on the lab's Talos release.
func labISOs(t *testing.T, files cluster.MapFiles) (base, gpu string) {
	t.Helper()

	c := testlab.Load(t, files)

	ids, err := render.SchematicIDs(c)
	if err != nil {
		t.Fatal(err)
	}

	v := c.Spec.TalosVersion

	return images.ISOName(v, ids["base"], "nocloud-amd64.iso"), images.ISOName(v, ids["gpu"], "nocloud-amd64.iso")
}

func TestISOName_VersionSchematicPrefixAndFactoryFile(t *testing.T) {
	t.Parallel()

	got := images.ISOName("1.13.9", "376567988ad370138ad8b2698212367b8edcb69b5fd68c80be1f2ec7d603b4ba", "nocloud-amd64-secureboot.iso")
	if want := "talos-v1.13.9-376567988ad3-nocloud-amd64-secureboot.iso"; got != want {
		t.Errorf("ISOName = %q, want %q", got, want)
	}
}

func TestProxmoxImages_PresentImagesAreNotDownloadedMissingOnesAreAndAwaited(t *testing.T) {
	t.Parallel()

	srv := proxmoxtest.New(t, pveToken)
	files := proxmoxLab(t, srv)
	base, gpu := labISOs(t, files)

	srv.AddStorage("pve", "local", "iso,vztmpl,backup", base)
	srv.AddStorage("pve2", "local", "iso,vztmpl,backup")

	h := proxmoxHarness(t, files, pveToken)
	registeringFactory(t, h, srv, files)

	if err := h.run("proxmox", "images", "--dir", "examples/homelab"); err != nil {
		t.Fatalf("%v\n%s", err, h.stderr.String())
	}

	ids, _ := render.SchematicIDs(testlab.Load(t, files))
	url := func(id string) string {
		return "https://factory.talos.dev/image/" + id + "/" + testlab.Talos + "/nocloud-amd64.iso"
	}

	want := []proxmoxtest.Download{
		{Node: "pve", Storage: "local", Content: "iso", Filename: gpu, URL: url(ids["gpu"])},
		{Node: "pve2", Storage: "local", Content: "iso", Filename: base, URL: url(ids["base"])},
	}
	if got := srv.Downloads(); !slices.Equal(got, want) {
		t.Errorf("downloads:\n%+v\nwant\n%+v", got, want)
	}

	if u := srv.Unfinished(); len(u) > 0 {
		t.Errorf("download tasks not awaited: %v", u)
	}

	if got := srv.ISOs("pve", "local"); !slices.Equal(got, slices.Sorted(slices.Values([]string{base, gpu}))) {
		t.Errorf("pve holds %v", got)
	}

	golden(t, "proxmox-images.txt", h.stdout.String())

	// A second run finds everything and downloads nothing (the fake fails the test on a
	// download over an existing file).
	h = proxmoxHarness(t, files, pveToken)
	if err := h.run("proxmox", "images", "--dir", "examples/homelab"); err != nil {
		t.Fatal(err)
	}

	if got := strings.SplitN(h.stdout.String(), "\n", 2)[0]; got != "Proxmox images: homelab — 3 present" {
		t.Errorf("second run: %q", got)
	}

	if n := len(srv.Downloads()); n != 2 {
		t.Errorf("second run downloaded again: %d downloads in all", n)
	}
}

// registeringFactory is a fake Image Factory that expects the lab's two schematics to be
// registered, and makes srv's downloads end as the real factory answers them: the ISO of
// a schematic the factory was not told about is a 404, and the download task fails.
func registeringFactory(t *testing.T, h *harness, srv *proxmoxtest.Server, files cluster.MapFiles) {
	t.Helper()

	fake := fakeFactory(t, h, "https://factory.talos.dev")
	fake.ExpectRegister(labSchematic(t, files, "base"))
	fake.ExpectRegister(labSchematic(t, files, "gpu"))

	srv.Fetch(func(d proxmoxtest.Download) string {
		for _, r := range fake.Requests() {
			if r.Method != "POST" || r.Path != "/schematics" {
				continue
			}

			if s, err := schematic.Load(r.Body); err == nil {
				if id, err := s.ID(); err == nil && strings.Contains(d.URL, "/image/"+id+"/") {
					return ""
				}
			}
		}

		return "download failed: 404 Not Found"
	})
}

func TestProxmoxImages_RegistersTheSchematicsBeforeDownloading(t *testing.T) {
	t.Parallel()

	srv := proxmoxtest.New(t, pveToken)
	files := proxmoxLab(t, srv)

	srv.AddStorage("pve", "local", "iso")
	srv.AddStorage("pve2", "local", "iso")

	h := proxmoxHarness(t, files, pveToken)
	registeringFactory(t, h, srv, files)

	if err := h.run("proxmox", "images", "--dir", "examples/homelab"); err != nil {
		t.Fatalf("%v\n%s", err, h.stdout.String())
	}

	if got := strings.SplitN(h.stdout.String(), "\n", 2)[0]; got != "Proxmox images: homelab — 3 downloaded" {
		t.Errorf("summary %q", got)
	}
}

func TestProxmoxImages_DryRunDownloadsNothing(t *testing.T) {
	t.Parallel()

	srv := proxmoxtest.New(t, pveToken)
	files := proxmoxLab(t, srv)
	base, _ := labISOs(t, files)

	srv.AddStorage("pve", "local", "iso", base)
	srv.AddStorage("pve2", "local", "iso")

	h := proxmoxHarness(t, files, pveToken)
	if err := h.run("proxmox", "images", "--dir", "examples/homelab", "--dry-run", "--format", "json"); err != nil {
		t.Fatal(err)
	}

	var got images.ProxmoxImages
	if err := json.Unmarshal(h.stdout.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, h.stdout.String())
	}

	if len(srv.Downloads()) > 0 {
		t.Errorf("a dry run downloaded %+v", srv.Downloads())
	}

	s := got.Summary
	if !got.DryRun || s.Present != 1 || s.Missing != 2 || s.Downloaded != 0 || s.Line != "Proxmox images: homelab — 2 missing, 1 present (dry run)" {
		t.Errorf("summary %+v", s)
	}

	// Images are ordered by Proxmox node and file name: on pve, gpu's ID sorts first.
	if im := got.Images[1]; im.ProxmoxNode != "pve" || im.File != base || im.Outcome != "present" ||
		!slices.Equal(im.Nodes, []string{"k8s-master", "k8s-node2", "k8s-node3"}) {
		t.Errorf("first image %+v", im)
	}
}

func TestProxmoxImages_FailedTaskIsReportedAndExitsOne(t *testing.T) {
	t.Parallel()

	srv := proxmoxtest.New(t, pveToken)
	files := proxmoxLab(t, srv)
	base, gpu := labISOs(t, files)

	srv.AddStorage("pve", "local", "iso")
	srv.AddStorage("pve2", "local", "iso")
	srv.FailDownload(gpu, "download failed: 500 Internal Server Error")

	h := proxmoxHarness(t, files, pveToken)
	registeringFactory(t, h, srv, files)

	err := h.run("proxmox", "images", "--dir", "examples/homelab")
	if cli.ExitCode(err) != 1 {
		t.Fatalf("exit code %d (%v), want 1", cli.ExitCode(err), err)
	}

	out := h.stdout.String()
	if !strings.HasPrefix(out, "Proxmox images: homelab — 1 failed, 2 downloaded\n") ||
		!strings.Contains(out, "  pve: "+gpu+" failed (k8s-node1)\n    error: download "+gpu+" into local on pve: task UPID:pve:") ||
		!strings.Contains(out, "failed: download failed: 500 Internal Server Error\n") {
		t.Errorf("stdout:\n%s", out)
	}

	// The other images were still downloaded.
	if got := srv.ISOs("pve", "local"); !slices.Equal(got, []string{base}) {
		t.Errorf("pve holds %v", got)
	}

	if got := srv.ISOs("pve2", "local"); !slices.Equal(got, []string{base}) {
		t.Errorf("pve2 holds %v", got)
	}
}

func TestProxmoxImages_WrongTokenFailsEveryImageWithoutQuotingIt(t *testing.T) {
	t.Parallel()

	srv := proxmoxtest.New(t, pveToken)
	files := proxmoxLab(t, srv)

	srv.AddStorage("pve", "local", "iso")
	srv.AddStorage("pve2", "local", "iso")

	wrong := proxmoxtest.Token{ID: pveToken.ID, Secret: "wrong-" + pveToken.Secret}
	h := proxmoxHarness(t, files, wrong)

	if err := h.run("proxmox", "images", "--dir", "examples/homelab"); cli.ExitCode(err) != 1 {
		t.Fatalf("err = %v, want exit 1", err)
	}

	out := h.stdout.String()
	if !strings.HasPrefix(out, "Proxmox images: homelab — 3 failed\n") || !strings.Contains(out, "not authorized") {
		t.Errorf("stdout:\n%s", out)
	}

	if strings.Contains(out+h.stderr.String(), wrong.Secret) {
		t.Errorf("the wrong secret is printed")
	}
}

func TestProxmoxVMs_MissingVMIsReportedAndExitsOne(t *testing.T) {
	t.Parallel()

	srv := proxmoxtest.New(t, pveToken)
	files := proxmoxLab(t, srv)

	srv.AddVM("pve", 200, "k8s-master", "running")
	srv.AddVM("pve", 201, "k8s-node1", "running")
	srv.AddVM("pve", 202, "k8s-node2", "running")
	srv.AddVM("pve", 203, "k8s-node3", "stopped")

	h := proxmoxHarness(t, files, pveToken)

	err := h.run("proxmox", "vms", "--dir", "examples/homelab")
	if cli.ExitCode(err) != 1 {
		t.Fatalf("exit code %d (%v), want 1", cli.ExitCode(err), err)
	}

	golden(t, "proxmox-vms.txt", h.stdout.String())

	if got := srv.VMStatus("pve", 203); got != "stopped" {
		t.Errorf("without --start the VM was touched: %s", got)
	}
}

func TestProxmoxVMs_StartStartsAStoppedVM(t *testing.T) {
	t.Parallel()

	srv := proxmoxtest.New(t, pveToken)
	files := proxmoxLab(t, srv)

	srv.AddVM("pve", 200, "k8s-master", "running")
	srv.AddVM("pve", 201, "k8s-node1", "stopped")
	srv.AddVM("pve", 202, "k8s-node2", "running")
	srv.AddVM("pve", 203, "k8s-node3", "running")
	srv.AddVM("pve2", 204, "k8s-node4", "running")

	h := proxmoxHarness(t, files, pveToken)
	if err := h.run("proxmox", "vms", "--dir", "examples/homelab", "--start", "--format", "json"); err != nil {
		t.Fatalf("%v\n%s", err, h.stdout.String())
	}

	if got := srv.VMStatus("pve", 201); got != "running" {
		t.Errorf("VM 201 is %s after --start", got)
	}

	if u := srv.Unfinished(); len(u) > 0 {
		t.Errorf("start task not awaited: %v", u)
	}

	var got images.ProxmoxVMs
	if err := json.Unmarshal(h.stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}

	if got.Summary.Line != "Proxmox VMs: homelab — 1 started, 4 running" || got.VMs[1].Outcome != "started" || got.VMs[1].Node != "k8s-node1" {
		t.Errorf("report %+v", got)
	}
}

func TestProxmoxVMs_StartDoesNotResumeAPausedOrHibernatedVM(t *testing.T) {
	t.Parallel()

	srv := proxmoxtest.New(t, pveToken)
	files := proxmoxLab(t, srv)

	srv.AddVM("pve", 200, "k8s-master", "running")
	srv.AddVM("pve", 201, "k8s-node1", proxmoxtest.Paused)
	srv.AddVM("pve", 202, "k8s-node2", proxmoxtest.Hibernated)
	srv.AddVM("pve", 203, "k8s-node3", "running")
	srv.AddVM("pve2", 204, "k8s-node4", "running")

	h := proxmoxHarness(t, files, pveToken)

	if err := h.run("proxmox", "vms", "--dir", "examples/homelab", "--start"); cli.ExitCode(err) != 1 {
		t.Fatalf("err = %v, want exit 1: two VMs do not run", err)
	}

	out := h.stdout.String()
	for _, want := range []string{
		"Proxmox VMs: homelab — 2 not running, 3 running\n",
		"  k8s-node1: pve/201 (k8s-node1) not running (status paused; --start does not resume it: resume it in Proxmox)\n",
		"  k8s-node2: pve/202 (k8s-node2) not running (status hibernated; --start does not resume it: resume it in Proxmox)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}

	if a, b := srv.VMStatus("pve", 201), srv.VMStatus("pve", 202); a != proxmoxtest.Paused || b != proxmoxtest.Hibernated {
		t.Errorf("VMs are %s and %s after --start, want untouched", a, b)
	}
}

func TestProxmox_NodesOnProxmoxWithoutTheSectionNameFileLineAndField(t *testing.T) {
	t.Parallel()

	h := proxmoxHarness(t, testlab.Files(t), pveToken)

	err := h.run("proxmox", "vms", "--dir", "examples/homelab")
	if cli.ExitCode(err) != 1 {
		t.Fatalf("err = %v", err)
	}

	if want := "talops: examples/homelab/talops.yaml:27: nodes[0].proxmox: needs the top-level proxmox: section (url, storage)\n"; !strings.HasPrefix(h.stderr.String(), want) {
		t.Errorf("stderr:\n%s\nwant it to start with\n%s", h.stderr.String(), want)
	}
}

func TestProxmox_BadSectionNamesFileLineAndField(t *testing.T) {
	t.Parallel()

	files := testlab.Files(t)
	testlab.Edit(t, files, "talops.yaml", "nodes:\n", "proxmox:\n  url: http://pve.lab:8006/api2/json\n  storage: local\n  insecureSkipVerify: true\nnodes:\n")

	h := proxmoxHarness(t, files, pveToken)

	if err := h.run("proxmox", "images", "--dir", "examples/homelab"); cli.ExitCode(err) != 1 {
		t.Fatalf("err = %v", err)
	}

	want := "talops: examples/homelab/talops.yaml:23: proxmox.insecureSkipVerify: unknown field\n"
	if h.stderr.String() != want {
		t.Errorf("stderr:\n%s\nwant\n%s", h.stderr.String(), want)
	}
}

func TestProxmox_TokenComesFromTheEnvironmentOnly(t *testing.T) {
	t.Parallel()

	srv := proxmoxtest.New(t, pveToken)

	h := proxmoxHarness(t, proxmoxLab(t, srv), proxmoxtest.Token{ID: pveToken.ID})

	if err := h.run("proxmox", "vms", "--dir", "examples/homelab"); cli.ExitCode(err) != 1 {
		t.Fatalf("err = %v", err)
	}

	if want := "talops: PROXMOX_TOKEN_ID and PROXMOX_TOKEN_SECRET must hold a Proxmox API token (user@realm!name and its secret)\n"; h.stderr.String() != want {
		t.Errorf("stderr = %q", h.stderr.String())
	}

	if n := len(srv.Requests()); n > 0 {
		t.Errorf("%d requests without a token", n)
	}
}

func TestProxmox_UnknownSubcommandIsAUsageError(t *testing.T) {
	t.Parallel()

	h := newHarness(t, testlab.Files(t), nil)

	err := h.run("proxmox", "prune")

	var usage *app.UsageError
	if !errors.As(err, &usage) || err.Error() != `unknown proxmox command "prune" (known: images, vms)` {
		t.Errorf("err = %v", err)
	}
}

func TestProxmox_CAFileWithoutACertificateNamesTheField(t *testing.T) {
	t.Parallel()

	srv := proxmoxtest.New(t, pveToken)
	files := proxmoxLab(t, srv)
	files["pve-ca.pem"] = []byte("not a certificate\n")

	h := proxmoxHarness(t, files, pveToken)

	if err := h.run("proxmox", "images", "--dir", "examples/homelab"); cli.ExitCode(err) != 1 {
		t.Fatalf("err = %v", err)
	}

	if want := "talops: examples/homelab/talops.yaml:23: proxmox.caFile: proxmox CA file holds no PEM certificate\n"; h.stderr.String() != want {
		t.Errorf("stderr = %q, want %q", h.stderr.String(), want)
	}
}
