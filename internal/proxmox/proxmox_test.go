package proxmox_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/proxmox"
	"github.com/talops/talops/internal/proxmox/proxmoxtest"
)

var token = proxmoxtest.Token{ID: "talops@pve!ci", Secret: "0b5f9c1e-7d1a-4c2e-9f3b-secretvalue"}

func client(t *testing.T, srv *proxmoxtest.Server, tok proxmoxtest.Token) *proxmox.Client {
	t.Helper()

	c, err := proxmox.New(proxmox.Config{
		URL: srv.URL(), TokenID: tok.ID, TokenSecret: tok.Secret, CAPEM: srv.CAPEM(),
		PollInterval: time.Millisecond, RequestTimeout: 5 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}

	return c
}

func TestISOs_ListsOnlyTheISOsOfTheStorage(t *testing.T) {
	srv := proxmoxtest.New(t, token)
	srv.AddStorage("pve", "local", "iso,vztmpl,backup", "b.iso", "a.iso")

	got, err := client(t, srv, token).ISOs(context.Background(), "pve", "local")
	if err != nil {
		t.Fatal(err)
	}

	if !slices.Equal(got, []string{"a.iso", "b.iso"}) {
		t.Errorf("ISOs = %v", got)
	}
}

func TestISOs_StorageWithoutISOContentIsAnError(t *testing.T) {
	srv := proxmoxtest.New(t, token)
	srv.AddStorage("pve", "local-lvm", "images,rootdir")

	_, err := client(t, srv, token).ISOs(context.Background(), "pve", "local-lvm")
	if want := "storage local-lvm on pve does not hold ISO images (content: images,rootdir)"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}

func TestISOs_MissingStorageIsProxmoxsParameterError(t *testing.T) {
	srv := proxmoxtest.New(t, token)

	_, err := client(t, srv, token).ISOs(context.Background(), "pve", "nope")
	if want := "storage nope on pve: 400 Parameter verification failed. (storage: No such storage.)"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}

	var ae *proxmox.APIError
	if !errors.As(err, &ae) || ae.StatusCode != 400 || ae.Errors["storage"] != "No such storage." {
		t.Errorf("err = %#v, want the 400 with the storage parameter's reason", err)
	}
}

func TestUnreachableNode_KeepsTheCause(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		reason string
		call   func(*proxmox.Client) error
		want   string
	}{
		{
			name: "VM list", status: 595, reason: "No route to host",
			call: func(c *proxmox.Client) error { _, err := c.VM(context.Background(), "pve", 200); return err },
			want: "list VMs on pve: node pve is unreachable (595 No route to host)",
		},
		{
			name: "storage", status: 596, reason: "Connection timed out",
			call: func(c *proxmox.Client) error { _, err := c.ISOs(context.Background(), "pve", "local"); return err },
			want: "storage local on pve: node pve is unreachable (596 Connection timed out)",
		},
		{
			name: "start", status: 595, reason: "No route to host",
			call: func(c *proxmox.Client) error { return c.StartVM(context.Background(), "pve", 200) },
			want: "list VMs on pve: node pve is unreachable (595 No route to host)",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := proxmoxtest.New(t, token)
			srv.AddStorage("pve", "local", "iso")
			srv.AddVM("pve", 200, "k8s-master", "stopped")
			srv.NodeDown("pve", tc.status, tc.reason)

			err := tc.call(client(t, srv, token))

			var ae *proxmox.APIError
			if err == nil || err.Error() != tc.want || !errors.As(err, &ae) || !ae.Unreachable() {
				t.Errorf("err = %v, want %s", err, tc.want)
			}
		})
	}
}

func TestDownloadISO_TaskEndingWithWarningsSucceeded(t *testing.T) {
	srv := proxmoxtest.New(t, token)
	srv.AddStorage("pve", "local", "iso")
	srv.FailDownload("talos.iso", "WARNINGS: 1")

	if err := client(t, srv, token).DownloadISO(context.Background(), "pve", "local", "https://factory.talos.dev/x.iso", "talos.iso"); err != nil {
		t.Fatalf("err = %v, want success: PVE counts warnings a success", err)
	}

	if got := srv.ISOs("pve", "local"); !slices.Equal(got, []string{"talos.iso"}) {
		t.Errorf("storage holds %v", got)
	}
}

func TestStartVM_TaskEndingWithWarningsSucceeded(t *testing.T) {
	srv := proxmoxtest.New(t, token)
	srv.AddVM("pve", 201, "k8s-node1", "stopped")
	srv.VMTaskExit("pve", 201, "WARNINGS: 2")

	if err := client(t, srv, token).StartVM(context.Background(), "pve", 201); err != nil {
		t.Fatalf("err = %v, want success", err)
	}

	if got := srv.VMStatus("pve", 201); got != "running" {
		t.Errorf("status after start = %q", got)
	}
}

func TestStartVM_FailedTaskIsATaskError(t *testing.T) {
	srv := proxmoxtest.New(t, token)
	srv.AddVM("pve", 201, "k8s-node1", "stopped")
	srv.VMTaskExit("pve", 201, "start failed: QEMU exited with code 1")

	var te *proxmox.TaskError
	if err := client(t, srv, token).StartVM(context.Background(), "pve", 201); !errors.As(err, &te) || te.ExitStatus != "start failed: QEMU exited with code 1" {
		t.Errorf("err = %v, want a TaskError", err)
	}
}

func TestStartVM_TaskIDWithoutANodeIsAnError(t *testing.T) {
	srv := proxmoxtest.New(t, token)
	srv.AddVM("pve", 201, "k8s-node1", "stopped")
	srv.NodelessTaskIDs()

	err := client(t, srv, token).StartVM(context.Background(), "pve", 201)

	const want = `proxmox answered a task ID that names no node: "UPID::`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want it to say %s…", err, want)
	}
}

func TestVM_PausedAndHibernatedVMsAreNotRunning(t *testing.T) {
	srv := proxmoxtest.New(t, token)
	srv.AddVM("pve", 200, "k8s-master", proxmoxtest.Paused)
	srv.AddVM("pve", 201, "k8s-node1", proxmoxtest.Hibernated)

	c := client(t, srv, token)

	for vmid, want := range map[int]proxmox.VMStatus{
		200: {Exists: true, Name: "k8s-master", Status: proxmox.StatusPaused},
		201: {Exists: true, Name: "k8s-node1", Status: proxmox.StatusHibernated},
	} {
		got, err := c.VM(context.Background(), "pve", vmid)
		if err != nil || got != want {
			t.Errorf("VM %d = %+v, %v; want %+v", vmid, got, err, want)
		}
	}
}

func TestDownloadISO_PostsDownloadURLAndWaitsForTheTask(t *testing.T) {
	srv := proxmoxtest.New(t, token)
	srv.AddStorage("pve", "local", "iso")

	url := "https://factory.talos.dev/image/376567988ad370138ad8b2698212367b8edcb69b5fd68c80be1f2ec7d603b4ba/v1.13.9/nocloud-amd64.iso"

	if err := client(t, srv, token).DownloadISO(context.Background(), "pve", "local", url, "talos.iso"); err != nil {
		t.Fatal(err)
	}

	want := []proxmoxtest.Download{{Node: "pve", Storage: "local", Content: "iso", Filename: "talos.iso", URL: url}}
	if got := srv.Downloads(); !slices.Equal(got, want) {
		t.Errorf("downloads = %+v, want %+v", got, want)
	}

	if got := srv.ISOs("pve", "local"); !slices.Equal(got, []string{"talos.iso"}) {
		t.Errorf("storage holds %v after the task", got)
	}

	if u := srv.Unfinished(); len(u) > 0 {
		t.Errorf("tasks not awaited: %v", u)
	}
}

func TestDownloadISO_FailedTaskIsATaskError(t *testing.T) {
	srv := proxmoxtest.New(t, token)
	srv.AddStorage("pve", "local", "iso")
	srv.FailDownload("talos.iso", "download failed: 404 Not Found")

	err := client(t, srv, token).DownloadISO(context.Background(), "pve", "local", "https://factory.talos.dev/x.iso", "talos.iso")

	var te *proxmox.TaskError
	if !errors.As(err, &te) || te.ExitStatus != "download failed: 404 Not Found" || !strings.HasPrefix(te.UPID, "UPID:pve:") {
		t.Fatalf("err = %v, want a TaskError", err)
	}

	if got := srv.ISOs("pve", "local"); len(got) != 0 {
		t.Errorf("a failed download left %v", got)
	}
}

func TestDownloadISO_CancelledContextStopsWaiting(t *testing.T) {
	srv := proxmoxtest.New(t, token)
	srv.AddStorage("pve", "local", "iso")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()

	if err := client(t, srv, token).DownloadISO(ctx, "pve", "local", "https://f/x.iso", "x.iso"); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestVM_StatusOfPresentAndMissingVMs(t *testing.T) {
	srv := proxmoxtest.New(t, token)
	srv.AddVM("pve", 200, "k8s-master", "running")
	srv.AddVM("pve", 201, "k8s-node1", "stopped")

	c := client(t, srv, token)

	for vmid, want := range map[int]proxmox.VMStatus{
		200: {Exists: true, Running: true, Name: "k8s-master", Status: "running"},
		201: {Exists: true, Name: "k8s-node1", Status: "stopped"},
		202: {},
	} {
		got, err := c.VM(context.Background(), "pve", vmid)
		if err != nil || got != want {
			t.Errorf("VM %d = %+v, %v; want %+v", vmid, got, err, want)
		}
	}
}

func TestStartVM_StartsAndWaits(t *testing.T) {
	srv := proxmoxtest.New(t, token)
	srv.AddVM("pve", 201, "k8s-node1", "stopped")

	if err := client(t, srv, token).StartVM(context.Background(), "pve", 201); err != nil {
		t.Fatal(err)
	}

	if got := srv.VMStatus("pve", 201); got != "running" {
		t.Errorf("status after start = %q", got)
	}
}

func TestResetVM_ResetsARunningVM(t *testing.T) {
	srv := proxmoxtest.New(t, token)
	srv.AddVM("pve", 200, "k8s-master", "running")

	if err := client(t, srv, token).ResetVM(context.Background(), "pve", 200); err != nil {
		t.Fatal(err)
	}

	if u := srv.Unfinished(); len(u) > 0 {
		t.Errorf("tasks not awaited: %v", u)
	}
}

func TestStartVM_MissingVMIsErrNoVM(t *testing.T) {
	srv := proxmoxtest.New(t, token)

	if err := client(t, srv, token).StartVM(context.Background(), "pve", 300); !errors.Is(err, proxmox.ErrNoVM) {
		t.Errorf("err = %v, want ErrNoVM", err)
	}
}

func TestWrongTokenIsRefusedAndNotQuoted(t *testing.T) {
	srv := proxmoxtest.New(t, token)

	wrong := proxmoxtest.Token{ID: token.ID, Secret: "wrong-secret-value"}

	_, err := client(t, srv, wrong).VM(context.Background(), "pve", 200)
	if err == nil || !strings.Contains(err.Error(), "not authorized") {
		t.Fatalf("err = %v, want not authorized", err)
	}

	if strings.Contains(err.Error(), wrong.Secret) {
		t.Errorf("the error quotes the secret: %v", err)
	}
}

func TestUnknownCertificateIsRefused(t *testing.T) {
	srv := proxmoxtest.New(t, token)

	c, err := proxmox.New(proxmox.Config{URL: srv.URL(), TokenID: token.ID, TokenSecret: token.Secret, RequestTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}

	if _, err := c.VM(context.Background(), "pve", 200); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("err = %v, want a certificate error", err)
	}
}

func TestNew_RefusesPlainHTTPAndMissingToken(t *testing.T) {
	for i, cfg := range []proxmox.Config{
		{URL: "http://pve:8006/api2/json", TokenID: "a", TokenSecret: "b"},
		{URL: "https://pve:8006/api2/json", TokenID: "a"},
		{URL: "https://pve:8006/api2/json", TokenID: "a", TokenSecret: "b", CAPEM: []byte("not pem")},
	} {
		if _, err := proxmox.New(cfg); err == nil {
			t.Errorf("config %d: New succeeded", i)
		}
	}
}
