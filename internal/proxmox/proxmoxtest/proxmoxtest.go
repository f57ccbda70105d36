// Package proxmoxtest is a fake Proxmox VE API for tests: an httptest TLS server
// speaking Proxmox's REST shapes (/api2/json/..., the {"data": ...} envelope, UPIDs and
// task status) for the calls talops makes, with state: storages and their ISOs, VMs and
// their status, tasks.
//
// It answers as PVE does where the real API differs from the obvious: a task that ends
// "WARNINGS: n" succeeded; the VM list tells a paused VM from a running one only with
// full=1 (qmpstatus) and shows a hibernated VM as stopped with the lock "suspended"; a
// missing storage is a 400 naming the parameter; a node that is down answers 595 or 596
// with an empty body.
//
// Every request must carry the API token it was built with. A call outside those talops
// makes fails the test, and so do calls talops must never make whatever the state: a
// download over an existing file, starting a running, paused or hibernated VM, acting on
// a VM that is not there.
package proxmoxtest

import (
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// T is the part of testing.TB the fake uses.
type T interface {
	Helper()
	Errorf(format string, args ...any)
	Cleanup(func())
}

// Token is an API token: ID "user@realm!name" and its secret.
type Token struct{ ID, Secret string }

// Download is a download-url request the fake accepted.
type Download struct {
	Node, Storage, Content, Filename, URL string
}

// Request is a request the fake received (without its headers).
type Request struct{ Method, Path string }

// Server is the fake API.
type Server struct {
	t     T
	srv   *httptest.Server
	token Token

	mu        sync.Mutex
	storages  map[string]*storage // node/storage
	vms       map[string]*vm      // node/vmid
	tasks     map[string]*task    // UPID
	failures  map[string]string   // ISO file name → exit status of its download task
	vmExits   map[string]string   // node/vmid → exit status of its start and reset tasks
	down      map[string]downNode // node → how pveproxy answers for it
	fetch     func(Download) string
	onStart   func(node string, vmid int)
	downloads []Download
	created   []Created
	deleted   []string
	requests  []Request
	pid       int
	// nodeless makes the task IDs it answers name no node (a client must not panic).
	nodeless bool
}

type storage struct {
	content string
	isos    []string
}

// vm is a VM as PVE's vmstatus sees it: status is running or stopped, qmp QEMU's own
// status of a running VM (running, paused, prelaunch...), lock the config's lock
// ("suspended" for a VM hibernated to disk).
type vm struct {
	name, status, qmp, lock string
	// config is what GET qemu/{vmid}/config answers (PVE's keys, values as text).
	config map[string]string
}

// Created is a VM the fake created: its node and the create call's parameters.
type Created struct {
	Node   string
	Params map[string]string
}

type downNode struct {
	status int
	reason string
}

type task struct {
	node, kind, id string
	// polls is how many status requests still answer "running".
	polls      int
	exitStatus string
	done       func()
}

// New starts a fake API that accepts token; it stops when the test ends.
func New(t T, token Token) *Server {
	t.Helper()

	s := &Server{
		t: t, token: token,
		storages: map[string]*storage{}, vms: map[string]*vm{}, tasks: map[string]*task{},
		failures: map[string]string{}, vmExits: map[string]string{}, down: map[string]downNode{},
	}
	s.srv = httptest.NewTLSServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)

	return s
}

// URL is the API base, as talops.yaml names it: https://127.0.0.1:port/api2/json.
func (s *Server) URL() string { return s.srv.URL + "/api2/json" }

// CAPEM is the PEM certificate the server's TLS certificate chains to.
func (s *Server) CAPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.srv.Certificate().Raw})
}

// CertPool trusts the server.
func (s *Server) CertPool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(s.srv.Certificate())

	return p
}

// AddStorage adds a storage to a Proxmox node with its content types ("iso,vztmpl") and
// the ISO files it already holds.
func (s *Server) AddStorage(node, name, content string, isos ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()

	s.storages[node+"/"+name] = &storage{content: content, isos: slices.Clone(isos)}
}

// VM states AddVM takes beyond running and stopped.
const (
	// Paused is a VM whose QEMU process runs with the guest paused (qm suspend).
	Paused = "paused"
	// Hibernated is a VM suspended to disk (qm suspend --todisk): stopped, and locked
	// "suspended" until a start resumes it.
	Hibernated = "hibernated"
)

// AddVM adds a VM in a state: running, stopped, Paused or Hibernated.
func (s *Server) AddVM(node string, vmid int, name, state string) {
	s.mu.Lock()
	defer s.mu.Unlock()

	// A config as PVE writes one for a VM made in its web UI.
	v := &vm{name: name, status: state, config: map[string]string{
		"name": name, "cores": "4", "memory": "8192", "sockets": "1", "ostype": "l26", "boot": "order=scsi0;ide2;net0",
		"scsi0": "local-lvm:vm-" + strconv.Itoa(vmid) + "-disk-0,size=32G", "net0": "virtio=BC:24:11:5E:00:01,bridge=vmbr0,firewall=1",
		"scsihw": "virtio-scsi-single", "digest": "4f1d3c0e5b6a7988",
	}}

	switch state {
	case "running":
		v.qmp = "running"
	case Paused:
		v.status, v.qmp = "running", "paused"
	case Hibernated:
		v.status, v.lock = "stopped", "suspended"
	}

	s.vms[node+"/"+strconv.Itoa(vmid)] = v
}

// SetVMConfig replaces keys of a VM's config (an empty value deletes the key), as a hand
// edit in PVE would.
func (s *Server) SetVMConfig(node string, vmid int, keys map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()

	v := s.vms[node+"/"+strconv.Itoa(vmid)]
	for k, val := range keys {
		if val == "" {
			delete(v.config, k)
		} else {
			v.config[k] = val
		}
	}
}

// OnStart calls fn once a VM's start task has succeeded: a test boots the machine that VM
// runs (a fake Talos node in maintenance mode, say). fn runs with the fake's lock held and
// must not call it.
func (s *Server) OnStart(fn func(node string, vmid int)) {
	s.mu.Lock()
	defer s.mu.Unlock()

	s.onStart = fn
}

// Created returns the VMs the fake created, in order.
func (s *Server) Created() []Created {
	s.mu.Lock()
	defer s.mu.Unlock()

	return slices.Clone(s.created)
}

// Deleted returns the volumes deleted from storages ("local:iso/x.iso"), in order.
func (s *Server) Deleted() []string {
	s.mu.Lock()
	defer s.mu.Unlock()

	return slices.Clone(s.deleted)
}

// VMTaskExit makes the start and reset tasks of a VM end with exitStatus ("WARNINGS: 1"
// is a success in PVE).
func (s *Server) VMTaskExit(node string, vmid int, exitStatus string) {
	s.mu.Lock()
	defer s.mu.Unlock()

	s.vmExits[node+"/"+strconv.Itoa(vmid)] = exitStatus
}

// NodelessTaskIDs makes every task started answer a task ID whose node field is empty, as no
// PVE does: what a client makes of a malformed answer.
func (s *Server) NodelessTaskIDs() {
	s.mu.Lock()
	defer s.mu.Unlock()

	s.nodeless = true
}

// NodeDown makes every request for a Proxmox node answer as pveproxy does when it
// cannot reach that node: status 595 or 596, reason ("No route to host"), no body.
func (s *Server) NodeDown(node string, status int, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()

	s.down[node] = downNode{status: status, reason: reason}
}

// FailDownload makes the download task of an ISO file name end with exitStatus.
func (s *Server) FailDownload(filename, exitStatus string) {
	s.mu.Lock()
	defer s.mu.Unlock()

	s.failures[filename] = exitStatus
}

// Fetch sets how a download task ends for what the URL answers: fetch returns the exit
// status ("" for OK). Tests pass the fake factory's view, so that the ISO of a schematic
// the factory was never told about fails as it does for real: "download failed: 404 Not Found".
func (s *Server) Fetch(fetch func(Download) string) {
	s.mu.Lock()
	defer s.mu.Unlock()

	s.fetch = fetch
}

// ISOs lists the ISO files of a storage now.
func (s *Server) ISOs(node, name string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()

	if st := s.storages[node+"/"+name]; st != nil {
		return slices.Sorted(slices.Values(st.isos))
	}

	return nil
}

// VMStatus is a VM's state now, as AddVM takes it ("" when there is no such VM).
func (s *Server) VMStatus(node string, vmid int) string {
	s.mu.Lock()
	defer s.mu.Unlock()

	v := s.vms[node+"/"+strconv.Itoa(vmid)]

	switch {
	case v == nil:
		return ""
	case v.lock == "suspended":
		return Hibernated
	case v.status == "running" && v.qmp == "paused":
		return Paused
	default:
		return v.status
	}
}

// Downloads returns the download-url requests accepted, in order.
func (s *Server) Downloads() []Download {
	s.mu.Lock()
	defer s.mu.Unlock()

	return slices.Clone(s.downloads)
}

// Requests returns every request received, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()

	return slices.Clone(s.requests)
}

// Unfinished lists the tasks nobody waited for until they stopped.
func (s *Server) Unfinished() []string {
	s.mu.Lock()
	defer s.mu.Unlock()

	var out []string

	for upid, tk := range s.tasks {
		if tk.polls >= 0 {
			out = append(out, upid)
		}
	}

	slices.Sort(out)

	return out
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()

	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path})

	if r.Header.Get("Authorization") != "PVEAPIToken="+s.token.ID+"="+s.token.Secret {
		// Proxmox's answer to a missing or wrong token.
		fail(w, http.StatusUnauthorized, "authentication failure")

		return
	}

	rest, ok := strings.CutPrefix(r.URL.Path, "/api2/json/nodes/")
	parts := strings.Split(rest, "/")

	if d, isDown := s.down[parts[0]]; ok && isDown {
		failEmpty(w, d.status, d.reason)

		return
	}

	switch {
	case !ok || len(parts) < 2:
	case r.Method == http.MethodGet && len(parts) == 4 && parts[1] == "storage" && parts[3] == "status":
		s.storageStatus(w, parts[0], parts[2])

		return
	case r.Method == http.MethodGet && len(parts) == 4 && parts[1] == "storage" && parts[3] == "content":
		s.storageContent(w, r, parts[0], parts[2])

		return
	case r.Method == http.MethodPost && len(parts) == 4 && parts[1] == "storage" && parts[3] == "download-url":
		s.downloadURL(w, r, parts[0], parts[2])

		return
	case r.Method == http.MethodGet && len(parts) == 4 && parts[1] == "tasks" && parts[3] == "status":
		s.taskStatus(w, parts[0], parts[2])

		return
	case r.Method == http.MethodGet && len(parts) == 2 && parts[1] == "qemu":
		s.listVMs(w, parts[0], r.URL.Query().Get("full") == "1")

		return
	case r.Method == http.MethodPost && len(parts) == 2 && parts[1] == "qemu":
		s.createVM(w, r, parts[0])

		return
	case r.Method == http.MethodGet && len(parts) == 4 && parts[1] == "qemu" && parts[3] == "config":
		s.vmConfig(w, parts[0], parts[2])

		return
	case r.Method == http.MethodDelete && len(parts) >= 5 && parts[1] == "storage" && parts[3] == "content":
		// The volume ID holds a slash ("local:iso/x.iso"), escaped or not.
		s.deleteContent(w, r, parts[0], parts[2], strings.Join(parts[4:], "/"))

		return
	case r.Method == http.MethodPost && len(parts) == 5 && parts[1] == "qemu" && parts[3] == "status" &&
		(parts[4] == "start" || parts[4] == "reset"):
		s.vmAction(w, parts[0], parts[2], parts[4])

		return
	}

	s.unexpected(w, r.Method+" "+r.URL.Path, "no such call in the fake")
}

// unexpected fails the test and answers as Proxmox does for an unknown call.
func (s *Server) unexpected(w http.ResponseWriter, call, why string) {
	s.t.Errorf("proxmoxtest: unexpected call %s: %s", call, why)
	fail(w, http.StatusNotImplemented, "Method '"+call+"' not implemented")
}

// fail answers like Proxmox's API errors, which carry the message in the HTTP status
// line ("500 storage 'x' does not exist"); net/http cannot set a reason phrase, so the
// answer is written on the hijacked connection.
func fail(w http.ResponseWriter, status int, msg string) {
	failBody(w, status, msg, `{"data":null}`)
}

// failParam answers as PVE's parameter exceptions (raise_param_exc) do: 400 "Parameter
// verification failed." with the reason per parameter in the body's errors.
func failParam(w http.ResponseWriter, param, msg string) {
	body, _ := json.Marshal(map[string]any{"data": nil, "errors": map[string]string{param: msg}})
	failBody(w, http.StatusBadRequest, "Parameter verification failed.", string(body))
}

// failEmpty answers as pveproxy does for a node it cannot reach: no body at all.
func failEmpty(w http.ResponseWriter, status int, msg string) {
	failBody(w, status, msg, "")
}

func failBody(w http.ResponseWriter, status int, msg, body string) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, msg, status)

		return
	}

	conn, buf, err := hj.Hijack()
	if err != nil {
		return
	}
	defer conn.Close() //nolint:errcheck // the answer is written or the client sees EOF

	_, _ = fmt.Fprintf(buf, "HTTP/1.1 %d %s\r\nContent-Type: application/json;charset=UTF-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		status, strings.ReplaceAll(msg, "\n", " "), len(body), body)
	_ = buf.Flush()
}

func writeData(w http.ResponseWriter, data any) {
	w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	_ = json.NewEncoder(w).Encode(map[string]any{"data": data})
}

func (s *Server) storageStatus(w http.ResponseWriter, node, name string) {
	st := s.storages[node+"/"+name]
	if st == nil {
		// pve-storage's read_status: raise_param_exc({ storage => "No such storage." }).
		failParam(w, "storage", "No such storage.")

		return
	}

	writeData(w, map[string]any{
		"storage": name, "type": "dir", "content": st.content, "active": 1, "enabled": 1, "shared": 0,
		"total": 100 << 30, "used": 10 << 30, "avail": 90 << 30,
	})
}

func (s *Server) storageContent(w http.ResponseWriter, r *http.Request, node, name string) {
	st := s.storages[node+"/"+name]
	if st == nil {
		fail(w, http.StatusInternalServerError, fmt.Sprintf("storage '%s' does not exist", name))

		return
	}

	filter := r.URL.Query().Get("content")
	items := []map[string]any{}

	if filter == "" || filter == "iso" {
		for _, iso := range slices.Sorted(slices.Values(st.isos)) {
			items = append(items, map[string]any{
				"volid": name + ":iso/" + iso, "content": "iso", "format": "iso", "size": 100 << 20, "ctime": 1767225600,
			})
		}
	}

	if filter == "" {
		// Something that is not an ISO, as real storages hold, to be told apart.
		items = append(items, map[string]any{
			"volid": name + ":vztmpl/debian-12-standard_12.7-1_amd64.tar.zst", "content": "vztmpl", "format": "tzst", "size": 120 << 20, "ctime": 1767225600,
		})
	}

	writeData(w, items)
}

// params reads a request's parameters: go-proxmox posts JSON, pvesh and curl post forms.
func params(r *http.Request) (map[string]string, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		return nil, err
	}

	out := map[string]string{}

	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "application/json" {
		var raw map[string]any
		if err := json.Unmarshal(body, &raw); err != nil {
			return nil, err
		}

		for k, v := range raw {
			out[k] = fmt.Sprint(v)
		}

		return out, nil
	}

	form, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, err
	}

	for k := range form {
		out[k] = form.Get(k)
	}

	return out, nil
}

func (s *Server) downloadURL(w http.ResponseWriter, r *http.Request, node, name string) {
	call := "POST " + r.URL.Path

	st := s.storages[node+"/"+name]
	if st == nil {
		s.unexpected(w, call, "no storage "+name+" on node "+node)

		return
	}

	p, err := params(r)
	if err != nil {
		s.unexpected(w, call, "unreadable parameters: "+err.Error())

		return
	}

	d := Download{Node: node, Storage: name, Content: p["content"], Filename: p["filename"], URL: p["url"]}

	switch u, err := url.Parse(d.URL); {
	case d.Content != "iso":
		s.unexpected(w, call, fmt.Sprintf("content %q, want iso", d.Content))

		return
	case !strings.HasSuffix(d.Filename, ".iso") || strings.ContainsAny(d.Filename, "/\\") || d.Filename == "":
		// Proxmox refuses ISO names without the .iso extension.
		s.unexpected(w, call, fmt.Sprintf("file name %q is not an ISO file name", d.Filename))

		return
	case err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "":
		s.unexpected(w, call, fmt.Sprintf("url %q is not an http(s) URL", d.URL))

		return
	case slices.Contains(st.isos, d.Filename):
		// Proxmox refuses: "refusing to override existing file".
		s.unexpected(w, call, "the storage already holds "+d.Filename)

		return
	}

	s.downloads = append(s.downloads, d)

	exit := "OK"
	if e, ok := s.failures[d.Filename]; ok {
		exit = e
	} else if s.fetch != nil {
		if e := s.fetch(d); e != "" {
			exit = e
		}
	}

	upid := s.startTask(node, "download", name, exit, func() { st.isos = append(st.isos, d.Filename) })
	writeData(w, upid)
}

// listVMs answers GET nodes/{node}/qemu as PVE's vmstatus does: qmpstatus only with
// full=1 and only for a running VM, lock whenever the config has one.
func (s *Server) listVMs(w http.ResponseWriter, node string, full bool) {
	items := []map[string]any{}

	for _, key := range slices.Sorted(func(yield func(string) bool) {
		for k := range s.vms {
			if !yield(k) {
				return
			}
		}
	}) {
		n, id, _ := strings.Cut(key, "/")
		if n != node {
			continue
		}

		v := s.vms[key]
		vmid, _ := strconv.Atoi(id)

		item := map[string]any{
			"vmid": vmid, "name": v.name, "status": v.status, "cpus": 4, "maxmem": 8 << 30, "maxdisk": 64 << 30, "uptime": 0,
		}
		if v.status == "running" {
			item["pid"] = 4000 + vmid
			item["uptime"] = 3600

			if full {
				item["qmpstatus"] = v.qmp
			}
		}

		if v.lock != "" {
			item["lock"] = v.lock
		}

		items = append(items, item)
	}

	writeData(w, items)
}

// vmConfig answers GET nodes/{node}/qemu/{vmid}/config; PVE's answer for a VM that is not
// there is a 500 naming its config file.
func (s *Server) vmConfig(w http.ResponseWriter, node, id string) {
	v := s.vms[node+"/"+id]
	if v == nil {
		fail(w, http.StatusInternalServerError, "Configuration file 'nodes/"+node+"/qemu-server/"+id+".conf' does not exist")

		return
	}

	out := map[string]any{}
	for k, val := range v.config {
		if n, err := strconv.Atoi(val); err == nil {
			out[k] = n // PVE answers integers as JSON numbers
		} else {
			out[k] = val
		}
	}

	writeData(w, out)
}

// createVM answers POST nodes/{node}/qemu (qm create): a qmcreate task that leaves the VM
// stopped. PVE refuses a VM ID in use ("VM 201 already exists on node 'pve1'": talops must
// never ask) and a CD drive whose ISO volume is not in storage.
func (s *Server) createVM(w http.ResponseWriter, r *http.Request, node string) {
	call := "POST " + r.URL.Path

	p, err := params(r)
	if err != nil {
		s.unexpected(w, call, "unreadable parameters: "+err.Error())

		return
	}

	id := p["vmid"]
	if _, err := strconv.Atoi(id); err != nil {
		failParam(w, "vmid", "type check ('integer') failed - got '"+id+"'")

		return
	}

	for other := range s.vms {
		if _, vmid, _ := strings.Cut(other, "/"); vmid == id {
			s.unexpected(w, call, "VM "+id+" already exists on node '"+strings.SplitN(other, "/", 2)[0]+"'")

			return
		}
	}

	if cd := strings.SplitN(p["ide2"], ",", 2)[0]; cd != "" {
		store, file, _ := strings.Cut(cd, ":iso/")
		if st := s.storages[node+"/"+store]; st == nil || !slices.Contains(st.isos, file) {
			fail(w, http.StatusInternalServerError, "unable to create VM "+id+" - volume '"+cd+"' does not exist")

			return
		}
	}

	s.created = append(s.created, Created{Node: node, Params: p})

	config := map[string]string{}
	for k, v := range p {
		if k != "vmid" {
			config[k] = v
		}
	}

	if m := config["machine"]; m == "q35" {
		config["machine"] = "pc-q35-9.2+pve1" // PVE pins the machine version a new VM gets
	}

	writeData(w, s.startTask(node, "qmcreate", id, "OK", func() {
		s.vms[node+"/"+id] = &vm{name: p["name"], status: "stopped", config: config}
	}))
}

// deleteContent answers DELETE nodes/{node}/storage/{storage}/content/{volume}: an imgdel
// task. talops deletes only what it listed, so a volume that is not there fails the test.
func (s *Server) deleteContent(w http.ResponseWriter, r *http.Request, node, name, volume string) {
	call := "DELETE " + r.URL.Path

	st := s.storages[node+"/"+name]
	_, file, _ := strings.Cut(volume, ":iso/")

	if st == nil || !strings.HasPrefix(volume, name+":iso/") || !slices.Contains(st.isos, file) {
		s.unexpected(w, call, "no ISO volume "+volume+" in storage "+name+" on node "+node)

		return
	}

	s.deleted = append(s.deleted, volume)

	// pve-storage forks imgdel without an ID (a UPID's ID cannot hold the volume's colon).
	writeData(w, s.startTask(node, "imgdel", "", "OK", func() {
		st.isos = slices.DeleteFunc(st.isos, func(f string) bool { return f == file })
	}))
}

func (s *Server) vmAction(w http.ResponseWriter, node, id, action string) {
	call := "POST /api2/json/nodes/" + node + "/qemu/" + id + "/status/" + action

	v := s.vms[node+"/"+id]

	switch {
	case v == nil:
		s.unexpected(w, call, "no VM "+id+" on node "+node)

		return
	case action == "start" && v.status == "running":
		s.unexpected(w, call, "VM "+id+" is already running")

		return
	case action == "start" && v.lock == "suspended":
		s.unexpected(w, call, "VM "+id+" is hibernated: starting it resumes it")

		return
	case action == "reset" && v.status != "running":
		s.unexpected(w, call, "VM "+id+" is not running")

		return
	}

	kind := "qmstart"
	if action == "reset" {
		kind = "qmreset"
	}

	exit := "OK"
	if e, ok := s.vmExits[node+"/"+id]; ok {
		exit = e
	}

	writeData(w, s.startTask(node, kind, id, exit, func() {
		v.status, v.qmp = "running", "running"

		if vmid, err := strconv.Atoi(id); err == nil && s.onStart != nil && action == "start" {
			s.onStart(node, vmid)
		}
	}))
}

// startTask registers a task that answers "running" once, then stops with exit.
func (s *Server) startTask(node, kind, id, exit string, done func()) string {
	s.pid++

	named := node
	if s.nodeless {
		named = ""
	}

	upid := fmt.Sprintf("UPID:%s:%08X:%08X:%08X:%s:%s:%s:", named, 0x1000+s.pid, 0x2000+s.pid, 0x6950F200+s.pid, kind, id, s.token.ID)
	s.tasks[upid] = &task{node: node, kind: kind, id: id, polls: 1, exitStatus: exit, done: done}

	return upid
}

func (s *Server) taskStatus(w http.ResponseWriter, node, upid string) {
	tk := s.tasks[upid]
	if tk == nil || tk.node != node {
		s.unexpected(w, "GET /api2/json/nodes/"+node+"/tasks/"+upid+"/status", "no such task")

		return
	}

	status := map[string]any{
		"upid": upid, "node": node, "type": tk.kind, "id": tk.id, "user": s.token.ID,
		"pid": 0x1000, "pstart": 0x2000, "starttime": 1767225600, "status": "running",
	}

	switch {
	case tk.polls > 0:
		tk.polls--
	case tk.polls == 0:
		tk.polls--

		if taskSucceeded(tk.exitStatus) {
			tk.done()
		}

		fallthrough
	default:
		status["status"] = "stopped"
		status["exitstatus"] = tk.exitStatus
		status["endtime"] = 1767225660
	}

	writeData(w, status)
}

// taskSucceeded is PVE's reading of a task's exit status (PVE::Tools::upid_status_is_error):
// OK, or "WARNINGS: n".
func taskSucceeded(exit string) bool {
	n, ok := strings.CutPrefix(exit, "WARNINGS: ")
	if !ok {
		return exit == "OK"
	}

	_, err := strconv.ParseUint(n, 10, 32)

	return err == nil && n != ""
}
