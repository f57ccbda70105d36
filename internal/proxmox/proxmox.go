// Package proxmox is the narrow part of the Proxmox VE API talops uses: the ISOs of a
// storage, downloading an ISO into it, and the status, start and reset of a VM. It wraps
// github.com/luthermonson/go-proxmox behind an interface so that commands depend on what
// they use, and authenticates with an API token only.
package proxmox

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	goprox "github.com/luthermonson/go-proxmox"

	"github.com/talops/talops/internal/httpcap"
)

// API is what talops asks of Proxmox.
type API interface {
	// ISOs lists the file names of the ISO images in a storage of a Proxmox node.
	ISOs(ctx context.Context, node, storage string) ([]string, error)
	// DownloadISO makes the storage download url as file name and waits for the task.
	// A task that ends in failure is a *TaskError.
	DownloadISO(ctx context.Context, node, storage, url, name string) error
	// VM returns the status of a VM; a VM that does not exist is no error.
	VM(ctx context.Context, node string, vmid int) (VMStatus, error)
	// StartVM starts a VM and waits for the start task.
	StartVM(ctx context.Context, node string, vmid int) error
	// ResetVM resets a VM (a hard reset, as the power button) and waits for the task.
	ResetVM(ctx context.Context, node string, vmid int) error
	// VMConfig returns the config of an existing VM, every value as text.
	VMConfig(ctx context.Context, node string, vmid int) (map[string]string, error)
	// CreateVM creates a VM with PVE's create parameters (vmid among them) and waits for
	// the task. It never replaces a VM: PVE refuses a VM ID in use.
	CreateVM(ctx context.Context, node string, params map[string]string) error
	// DeleteISO deletes an ISO file from a storage and waits for the task.
	DeleteISO(ctx context.Context, node, storage, name string) error
}

// VMStatus is what talops needs to know of a VM.
type VMStatus struct {
	Exists bool
	// Running is true only for a VM whose guest runs: a paused VM is not running.
	Running bool
	// Name is the VM's name in Proxmox; Status its state: running, stopped, paused (or
	// another state QEMU reports for a VM whose process runs, such as prelaunch), or
	// hibernated (stopped with its memory saved: starting it resumes it).
	Name, Status string
}

// VM states talops reads beyond Proxmox's running and stopped.
const (
	StatusPaused     = "paused"
	StatusHibernated = "hibernated"
)

// TaskError is a Proxmox task that ended with an exit status PVE counts as a failure
// (anything but OK and "WARNINGS: n").
type TaskError struct {
	UPID       string
	ExitStatus string
}

func (e *TaskError) Error() string {
	return fmt.Sprintf("task %s failed: %s", e.UPID, e.ExitStatus)
}

// TaskTimeoutError is a task still running when talops stopped waiting for it.
type TaskTimeoutError struct {
	UPID  string
	After time.Duration
}

func (e *TaskTimeoutError) Error() string {
	return fmt.Sprintf("task %s still running after %s", e.UPID, e.After)
}

// Config is how to reach the API.
type Config struct {
	// URL is the API base, https://pve.lab:8006/api2/json.
	URL string
	// TokenID ("user@realm!name") and TokenSecret authenticate every request.
	TokenID, TokenSecret string
	// CAPEM, when set, is the only root the API's certificate may chain to.
	CAPEM []byte
	// RequestTimeout bounds one HTTP request (default 30 seconds).
	RequestTimeout time.Duration
	// DownloadTimeout bounds the wait for a download task (default 30 minutes: the
	// factory builds an ISO on first request); TaskTimeout the wait for other tasks
	// (default 2 minutes). PollInterval is the pause between task checks (default 2s).
	DownloadTimeout, TaskTimeout, PollInterval time.Duration
	// UserAgent names the caller.
	UserAgent string
}

// Client is the API over go-proxmox.
type Client struct {
	c   *goprox.Client
	cfg Config
}

// New builds a client; it makes no request.
func New(cfg Config) (*Client, error) {
	if !strings.HasPrefix(cfg.URL, "https://") {
		return nil, fmt.Errorf("proxmox API URL must be https, got %q", cfg.URL)
	}

	if cfg.TokenID == "" || cfg.TokenSecret == "" {
		return nil, errors.New("proxmox API token ID and secret are required")
	}

	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = 30 * time.Second
	}

	if cfg.DownloadTimeout == 0 {
		cfg.DownloadTimeout = 30 * time.Minute
	}

	if cfg.TaskTimeout == 0 {
		cfg.TaskTimeout = 2 * time.Minute
	}

	if cfg.PollInterval == 0 {
		cfg.PollInterval = 2 * time.Second
	}

	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}

	if len(cfg.CAPEM) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(cfg.CAPEM) {
			return nil, errors.New("proxmox CA file holds no PEM certificate")
		}

		tlsConfig.RootCAs = pool
	}

	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig = tlsConfig

	opts := []goprox.Option{
		goprox.WithHTTPClient(&http.Client{
			// go-proxmox decodes a whole answer into memory: one past maxBodyBytes fails.
			Transport: httpcap.Transport{Next: errorTransport{next: transport}, Limit: maxBodyBytes},
			Timeout:   cfg.RequestTimeout,
			// The API never redirects; following one could carry the token elsewhere.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}),
		goprox.WithAPIToken(cfg.TokenID, cfg.TokenSecret),
		// go-proxmox's logger writes to os.Stderr behind the command's back; talops
		// reports through its own writers only.
		goprox.WithLogger(silent{}),
	}

	if cfg.UserAgent != "" {
		opts = append(opts, goprox.WithUserAgent(cfg.UserAgent))
	}

	return &Client{c: goprox.NewClient(strings.TrimRight(cfg.URL, "/"), opts...), cfg: cfg}, nil
}

// ISOs implements API.
func (c *Client) ISOs(ctx context.Context, node, storage string) ([]string, error) {
	if err := c.isoStorage(ctx, node, storage); err != nil {
		return nil, err
	}

	// Read here rather than through go-proxmox's Storage, which dereferences whatever
	// the answer held: a "data": null, or a null item, is no ISO, not a crash.
	var content []*goprox.StorageContent
	if err := c.c.Get(ctx, fmt.Sprintf("/nodes/%s/storage/%s/content", node, storage), &content); err != nil {
		return nil, fmt.Errorf("list storage %s on %s: %w", storage, node, cause(err))
	}

	prefix := storage + ":iso/"

	var out []string

	for _, item := range content {
		if item == nil {
			continue
		}

		if name, ok := strings.CutPrefix(item.Volid, prefix); ok {
			out = append(out, name)
		}
	}

	slices.Sort(out)

	return out, nil
}

// isoStorage checks that a storage exists on the node and holds ISO images.
func (c *Client) isoStorage(ctx context.Context, node, storage string) error {
	var st *goprox.Storage
	if err := c.c.Get(ctx, fmt.Sprintf("/nodes/%s/storage/%s/status", node, storage), &st); err != nil {
		return fmt.Errorf("storage %s on %s: %w", storage, node, cause(err))
	}

	if st == nil {
		return fmt.Errorf("storage %s on %s: Proxmox answered without its status", storage, node)
	}

	if !slices.Contains(strings.Split(st.Content, ","), "iso") {
		return fmt.Errorf("storage %s on %s does not hold ISO images (content: %s)", storage, node, st.Content)
	}

	return nil
}

// DownloadISO implements API.
func (c *Client) DownloadISO(ctx context.Context, node, storage, url, name string) error {
	if err := c.isoStorage(ctx, node, storage); err != nil {
		return err
	}

	var upid goprox.UPID

	data := map[string]string{"content": "iso", "filename": name, "url": url}
	if err := c.c.Post(ctx, fmt.Sprintf("/nodes/%s/storage/%s/download-url", node, storage), data, &upid); err != nil {
		return fmt.Errorf("download %s into %s on %s: %w", name, storage, node, cause(err))
	}

	if err := c.wait(ctx, upid, c.cfg.DownloadTimeout); err != nil {
		return fmt.Errorf("download %s into %s on %s: %w", name, storage, node, err)
	}

	return nil
}

// VMConfig implements API.
func (c *Client) VMConfig(ctx context.Context, node string, vmid int) (map[string]string, error) {
	var raw map[string]any
	if err := c.c.Get(ctx, fmt.Sprintf("/nodes/%s/qemu/%d/config", node, vmid), &raw); err != nil {
		return nil, fmt.Errorf("read the config of VM %d on %s: %w", vmid, node, cause(err))
	}

	out := make(map[string]string, len(raw))

	for k, v := range raw {
		switch v := v.(type) {
		case string:
			out[k] = v
		case float64:
			out[k] = strconv.FormatFloat(v, 'f', -1, 64)
		case nil:
		default:
			out[k] = fmt.Sprint(v)
		}
	}

	return out, nil
}

// CreateVM implements API.
func (c *Client) CreateVM(ctx context.Context, node string, params map[string]string) error {
	vmid := params["vmid"]

	var upid goprox.UPID
	if err := c.c.Post(ctx, fmt.Sprintf("/nodes/%s/qemu", node), params, &upid); err != nil {
		return fmt.Errorf("create VM %s on %s: %w", vmid, node, cause(err))
	}

	if err := c.wait(ctx, upid, c.cfg.TaskTimeout); err != nil {
		return fmt.Errorf("create VM %s on %s: %w", vmid, node, err)
	}

	return nil
}

// DeleteISO implements API.
func (c *Client) DeleteISO(ctx context.Context, node, storage, name string) error {
	volume := url.PathEscape(storage + ":iso/" + name)

	var upid goprox.UPID
	if err := c.c.Delete(ctx, fmt.Sprintf("/nodes/%s/storage/%s/content/%s", node, storage, volume), &upid); err != nil {
		return fmt.Errorf("delete %s from %s on %s: %w", name, storage, node, cause(err))
	}

	if upid == "" {
		// Older PVE deletes at once and answers no task.
		return nil
	}

	if err := c.wait(ctx, upid, c.cfg.TaskTimeout); err != nil {
		return fmt.Errorf("delete %s from %s on %s: %w", name, storage, node, err)
	}

	return nil
}

// VM implements API. Existence comes from the node's VM list, because Proxmox answers a
// status request for a missing VM with a 500 that only its text tells apart.
func (c *Client) VM(ctx context.Context, node string, vmid int) (VMStatus, error) {
	vm, err := c.findVM(ctx, node, vmid)
	if err != nil || vm == nil {
		return VMStatus{}, err
	}

	st := VMStatus{Exists: true, Running: vm.IsRunning(), Name: vm.Name, Status: vm.Status}

	switch {
	case vm.IsHibernated():
		st.Status = StatusHibernated
	case vm.Status == goprox.StatusVirtualMachineRunning && vm.QMPStatus != "" && vm.QMPStatus != goprox.StatusVirtualMachineRunning:
		st.Status = vm.QMPStatus
	}

	return st, nil
}

// StartVM implements API.
func (c *Client) StartVM(ctx context.Context, node string, vmid int) error {
	return c.vmTask(ctx, node, vmid, "start")
}

// ResetVM implements API.
func (c *Client) ResetVM(ctx context.Context, node string, vmid int) error {
	return c.vmTask(ctx, node, vmid, "reset")
}

// ErrNoVM is a VM that is not on the node.
var ErrNoVM = errors.New("no such VM")

// vmTask posts qemu/{vmid}/status/{what} and waits for its task.
func (c *Client) vmTask(ctx context.Context, node string, vmid int, what string) error {
	vm, err := c.findVM(ctx, node, vmid)
	if err != nil {
		return err
	}

	if vm == nil {
		return fmt.Errorf("%s VM %d on %s: %w", what, vmid, node, ErrNoVM)
	}

	var upid goprox.UPID
	if err := c.c.Post(ctx, fmt.Sprintf("/nodes/%s/qemu/%d/status/%s", node, vmid, what), nil, &upid); err != nil {
		return fmt.Errorf("%s VM %d on %s: %w", what, vmid, node, cause(err))
	}

	if err := c.wait(ctx, upid, c.cfg.TaskTimeout); err != nil {
		return fmt.Errorf("%s VM %d on %s: %w", what, vmid, node, err)
	}

	return nil
}

// findVM reads the VM from the node's list with full=1: without it Proxmox reports a
// paused VM as running (only QEMU's status, qmpstatus, tells it apart).
func (c *Client) findVM(ctx context.Context, node string, vmid int) (*goprox.VirtualMachine, error) {
	var vms goprox.VirtualMachines
	if err := c.c.Get(ctx, fmt.Sprintf("/nodes/%s/qemu?full=1", node), &vms); err != nil {
		return nil, fmt.Errorf("list VMs on %s: %w", node, cause(err))
	}

	for _, vm := range vms {
		if vm != nil && int(vm.VMID) == vmid {
			return vm, nil
		}
	}

	return nil, nil //nolint:nilnil // a missing VM is an answer, not an error
}

// taskStatus is what /nodes/{node}/tasks/{upid}/status answers that a wait reads. It is
// read here rather than by go-proxmox's Task, whose JSON decoding copies fields by
// reflection over method names, which keeps every exported method of the binary linked.
type taskStatus struct {
	Status     string `json:"status"`
	ExitStatus string `json:"exitstatus"`
}

// upidNode is the node a task runs on: the second field of its UPID
// (UPID:node:pid:pstart:starttime:type:id:user:).
func upidNode(upid goprox.UPID) (string, bool) {
	fields := strings.Split(string(upid), ":")
	if len(fields) < 8 || fields[0] != "UPID" || fields[1] == "" {
		return "", false
	}

	return fields[1], true
}

// wait polls a task until it stops, the timeout passes or ctx ends. go-proxmox's own
// Task.Wait sleeps without watching the context, so the loop is ours.
func (c *Client) wait(ctx context.Context, upid goprox.UPID, timeout time.Duration) error {
	if upid == "" {
		return errors.New("proxmox answered without a task ID")
	}

	node, ok := upidNode(upid)
	if !ok {
		return fmt.Errorf("proxmox answered a task ID that names no node: %q", string(upid))
	}

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	tick := time.NewTicker(c.cfg.PollInterval)
	defer tick.Stop()

	for {
		var st taskStatus
		if err := c.c.Get(ctx, fmt.Sprintf("/nodes/%s/tasks/%s/status", node, upid), &st); err != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return &TaskTimeoutError{UPID: string(upid), After: timeout}
			}

			return fmt.Errorf("task %s: %w", upid, cause(err))
		}

		if st.Status == "stopped" {
			if taskSucceeded(st.ExitStatus) {
				return nil
			}

			return &TaskError{UPID: string(upid), ExitStatus: st.ExitStatus}
		}

		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return &TaskTimeoutError{UPID: string(upid), After: timeout}
			}

			return ctx.Err()
		case <-tick.C:
		}
	}
}

// cause is err's *APIError when it has one: the HTTP client wraps it in the request's
// method and URL, which say nothing the caller's message does not.
func cause(err error) error {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae
	}

	return err
}

// silent drops go-proxmox's log lines.
type silent struct{}

func (silent) Debugf(string, ...any) {}
func (silent) Errorf(string, ...any) {}
func (silent) Infof(string, ...any)  {}
func (silent) Warnf(string, ...any)  {}
