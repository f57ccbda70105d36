package cli_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/factory"
	"github.com/talops/talops/internal/proxmox"
	"github.com/talops/talops/internal/proxmox/proxmoxtest"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/testlab"
)

// prepareLab is the apply lab with a proxmox: section pointing at srv, the Proxmox token
// in the environment and an Image Factory fake; every node's config changes.
func prepareLab(t *testing.T, srv *proxmoxtest.Server) *applyLab {
	t.Helper()

	env := map[string]string{cli.EnvProxmoxTokenID: pveToken.ID, cli.EnvProxmoxTokenSecret: pveToken.Secret}
	if srv != nil {
		env[cli.EnvProxmoxURL] = srv.URL()
	}

	l := newApplyLab(t, env, nil)
	addSysctl(t, l.files)

	if srv != nil {
		testlab.Edit(t, l.files, "talops.yaml", "nodes:\n", "proxmox:\n  url: "+srv.URL()+"\n  storage: local\n  caFile: pve-ca.pem\nnodes:\n")
		l.files["pve-ca.pem"] = srv.CAPEM()
	}

	l.h.deps.Proxmox = func(cfg proxmox.Config) (proxmox.API, error) {
		if srv == nil {
			t.Error("Proxmox was asked for without a proxmox: section")
		}

		cfg.PollInterval = time.Millisecond

		c, err := proxmox.New(cfg)
		if err != nil {
			return nil, err
		}

		return c, nil
	}

	return l
}

func TestApply_RegistersSchematicsAndDownloadsBootImagesThenApplies(t *testing.T) {
	srv := proxmoxtest.New(t, pveToken)
	l := prepareLab(t, srv)
	base, gpu := labISOs(t, l.files)
	srv.AddStorage("pve", "local", "iso", base)

	fake := fakeFactory(t, l.h, "https://factory.talos.dev")
	fake.ExpectRegister(labSchematic(t, l.files, "base"))
	fake.ExpectRegister(labSchematic(t, l.files, "gpu"))

	if err := l.apply("--register", "--proxmox-images", "--format", "json"); err != nil {
		t.Fatalf("apply: %v\n%s", err, l.h.stderr.String())
	}

	if got := srv.ISOs("pve", "local"); len(got) != 2 || !strings.Contains(strings.Join(got, ","), gpu) {
		t.Errorf("pve holds %v, want the gpu ISO downloaded beside the base one", got)
	}

	stderr := l.h.stderr.String()
	if !strings.Contains(stderr, "registered 2 schematics with https://factory.talos.dev") || !strings.Contains(stderr, "Proxmox images: homelab — 1 downloaded, 1 present") {
		t.Errorf("stderr:\n%s", stderr)
	}

	if r := l.report(t); r.Summary.Line != "Apply: homelab — 5 applied" {
		t.Errorf("report: %s", r.Summary.Line)
	}

	if strings.Contains(stderr+l.h.stdout.String(), pveToken.Secret) {
		t.Error("the Proxmox token secret was printed")
	}
}

func TestApply_AFactoryThatGivesAnotherIDRefusesBeforeAnyNodeOrImage(t *testing.T) {
	srv := proxmoxtest.New(t, pveToken)
	l := prepareLab(t, srv)
	srv.AddStorage("pve", "local", "iso")

	fake := fakeFactory(t, l.h, "https://factory.talos.dev")
	fake.ExpectRegister(labSchematic(t, l.files, "base"))
	fake.ExpectRegister(labSchematic(t, l.files, "gpu")).AnswerID(strings.Repeat("0", 64))

	err := l.apply("--register", "--proxmox-images")

	var refused *cli.RefusedError
	if !errors.As(err, &refused) {
		t.Fatalf("error %v, want a refusal", err)
	}

	var mismatch *factory.IDMismatchError
	if !errors.As(err, &mismatch) {
		t.Errorf("the refusal lost the factory's error: %v", err)
	}

	if got := l.touched(); len(got) > 0 || len(l.journal.Entries()) > 0 {
		t.Errorf("nodes touched: %v (calls %q)", got, l.journal.Entries())
	}

	if len(srv.Downloads()) > 0 {
		t.Errorf("images downloaded after the refusal: %+v", srv.Downloads())
	}
}

func TestApply_AFailedBootImageDownloadRefusesBeforeAnyNode(t *testing.T) {
	srv := proxmoxtest.New(t, pveToken)
	l := prepareLab(t, srv)
	_, gpu := labISOs(t, l.files)
	srv.AddStorage("pve", "local", "iso")
	srv.FailDownload(gpu, "download failed: 500 Internal Server Error")
	registeringFactory(t, l.h, srv, l.files)

	err := l.apply("--proxmox-images")

	var refused *cli.RefusedError
	if !errors.As(err, &refused) || !strings.Contains(err.Error(), "some boot images could not be put in Proxmox storage") {
		t.Fatalf("error %v, want a refusal naming the boot images", err)
	}

	if got := l.touched(); len(got) > 0 {
		t.Errorf("nodes touched: %v", got)
	}
}

func TestApply_BootImagesWithoutRegisterStillRegisterTheSchematicsBeforeDownloading(t *testing.T) {
	srv := proxmoxtest.New(t, pveToken)
	l := prepareLab(t, srv)
	srv.AddStorage("pve", "local", "iso")
	registeringFactory(t, l.h, srv, l.files)

	if err := l.apply("--proxmox-images"); err != nil {
		t.Fatalf("apply: %v\n%s", err, l.h.stderr.String())
	}

	if got := srv.ISOs("pve", "local"); len(got) != 2 {
		t.Errorf("pve holds %v, want both ISOs", got)
	}
}

func TestApply_ProxmoxImagesWithoutAProxmoxSectionIsSkipped(t *testing.T) {
	l := prepareLab(t, nil)

	if err := l.apply("--proxmox-images"); err != nil {
		t.Fatalf("apply: %v\n%s", err, l.h.stderr.String())
	}

	if !strings.Contains(l.h.stderr.String(), "boot images: skipped, talops.yaml has no proxmox: section") {
		t.Errorf("stderr:\n%s", l.h.stderr.String())
	}

	if got := l.touched(); len(got) != 5 {
		t.Errorf("touched %v, want every node", got)
	}
}

func TestApply_DryRunListsMissingBootImagesWithoutDownloading(t *testing.T) {
	srv := proxmoxtest.New(t, pveToken)
	l := prepareLab(t, srv)
	srv.AddStorage("pve", "local", "iso")

	if err := l.apply("--proxmox-images", "--dry-run"); err != nil {
		t.Fatalf("apply: %v\n%s", err, l.h.stderr.String())
	}

	if len(srv.Downloads()) > 0 {
		t.Errorf("a dry run downloaded %+v", srv.Downloads())
	}

	if !strings.Contains(l.h.stderr.String(), "2 missing") {
		t.Errorf("stderr:\n%s", l.h.stderr.String())
	}
}

func TestApply_ReviewedBaseAndReviewedAgainstExcludeEachOther(t *testing.T) {
	h := newHarness(t, testlab.Files(t), nil)

	err := h.run("apply", "--dir", "examples/homelab", "--plan-hash", "h", "--reviewed-base", "main", "--reviewed-against", "base")

	var usage *app.UsageError
	if !errors.As(err, &usage) || !strings.Contains(err.Error(), "cannot be used together") {
		t.Errorf("error %v", err)
	}

	if err := h.run("apply", "--dir", "examples/homelab", "--reviewed-against", "base"); !errors.As(err, &usage) {
		t.Errorf("--reviewed-against without --plan-hash: %v", err)
	}
}

// In the container there is no git: the reviewed base is a checked-out directory.
func TestApply_PlanHashCheckedAgainstTheReviewedDirectory(t *testing.T) {
	l := newApplyLab(t, nil, nil)
	l.h.dirs["base"] = testlab.On113(t)
	addSysctl(t, l.files)

	if err := l.h.run("plan", "--dir", "examples/homelab", "--against", "base", "--format", "json"); err != nil {
		t.Fatal(err)
	}

	var reviewed struct{ Hash string }
	if err := json.Unmarshal(l.h.stdout.Bytes(), &reviewed); err != nil || len(reviewed.Hash) != 64 {
		t.Fatalf("plan: %v\n%s", err, l.h.stdout.String())
	}

	err := l.apply("--plan-hash", strings.Repeat("0", 64), "--reviewed-against", "base")
	if !strings.Contains(fmt.Sprint(err), "the plan differs from the one reviewed: its hash against base is "+reviewed.Hash) || len(l.touched()) > 0 {
		t.Fatalf("another hash: %v, touched %v", err, l.touched())
	}

	if err := l.apply("--plan-hash", reviewed.Hash, "--reviewed-against", "base"); err != nil {
		t.Fatalf("the reviewed hash: %v\n%s", err, l.h.stderr.String())
	}

	if got := l.touched(); len(got) != 5 {
		t.Errorf("touched %v, want every node", got)
	}
}

// An opaque schematic (the gpu one, kept as its ID) is not posted: the factory has the ID,
// and talops has nothing else to give it; the note says so.
func TestApply_RegisterLeavesAnOpaqueSchematicOutAndSaysSo(t *testing.T) {
	l := prepareLab(t, nil)

	ids, err := render.SchematicIDs(testlab.Load(t, l.files))
	if err != nil {
		t.Fatal(err)
	}

	l.files["schematics/gpu.yaml"] = []byte("id: " + ids["gpu"] + "\n")

	fake := fakeFactory(t, l.h, "https://factory.talos.dev")
	fake.ExpectRegister(labSchematic(t, l.files, "base"))

	if err := l.apply("--register", "--format", "json"); err != nil {
		t.Fatalf("apply: %v\n%s", err, l.h.stderr.String())
	}

	if want := "registered 1 schematic with https://factory.talos.dev: the factory gives the IDs talops computed (opaque gpu not posted: only the ID is known, and the factory has it)\n"; !strings.Contains(l.h.stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, l.h.stderr.String())
	}
}
