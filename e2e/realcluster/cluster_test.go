//go:build realtalos && k8s && cluster

package realcluster

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/siderolabs/talos/pkg/machinery/api/machine"
	"github.com/siderolabs/talos/pkg/machinery/client"
	clientconfig "github.com/siderolabs/talos/pkg/machinery/client/config"
	"github.com/siderolabs/talos/pkg/machinery/config"
	"github.com/siderolabs/talos/pkg/machinery/config/generate"
	"github.com/siderolabs/talos/pkg/machinery/config/generate/secrets"
	"github.com/siderolabs/talos/pkg/machinery/role"
	"go.yaml.in/yaml/v4"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// The releases the harness builds: Talos, the Kubernetes built from source (Talos v1.14.1's
// default) and the second patch release linked from the same source.
const (
	talosVersion = "v1.14.1"
	k8sVersion   = "v1.37.0"
	k8sNext      = "v1.37.1"
	// apiLB is the host's way to the cluster's kube-apiservers (forward.sh): the first
	// control plane that answers, so it answers while one of them reboots.
	apiLB = "127.0.99.1"
)

// member is one machine of the cluster.
type member struct {
	// name is its name in talops.yaml, host its harness node (and hostname, and Node name).
	name, host string
	// address is where talops dials its Talos API (a loopback forwarder), ip its address on
	// the cluster network.
	address, ip  string
	controlPlane bool
}

func (m member) endpoint() string { return m.address + ":50000" }

// cluster is a talops repository of three control planes and workers, and the real nodes
// it describes, created by talops apply from maintenance mode.
type cluster struct {
	dir        string
	members    []member
	admin      string // talosconfig, os:admin
	kubeconfig string // the admin kubeconfig through apiLB
	kube       *kubernetes.Clientset
}

// newCluster boots 3 control planes and workers in maintenance mode on the harness's cluster
// network, and creates the cluster with talops apply: it configures every node and
// bootstraps etcd on the first control plane; the others join. The harness only imports the
// images (nothing can be pulled). It returns once every Node is Ready. A watchdog fails the
// test with the nodes' logs after limit.
func newCluster(t *testing.T, workers int, limit time.Duration) *cluster {
	t.Helper()

	c := &cluster{dir: t.TempDir()}
	for i := 1; i <= 3+workers; i++ {
		m := member{name: fmt.Sprintf("cp%d", i), address: fmt.Sprintf("127.0.99.%d", i+1), ip: fmt.Sprintf("10.5.0.%d", i+1), controlPlane: i <= 3}
		if !m.controlPlane {
			m.name = fmt.Sprintf("w%d", i-3)
		}

		m.host = "cl-" + m.name
		c.members = append(c.members, m)
	}

	c.writeRepo(t)

	t.Cleanup(func() { c.stop(t) })
	c.watchdog(t, limit)

	t0 := time.Now()

	for _, m := range c.members {
		script(t, 3*time.Minute, "start.sh", "-n", m.ip, m.host, m.endpoint())
	}

	var cps []string
	for _, m := range c.controlPlanes() {
		cps = append(cps, m.ip+":6443")
	}

	script(t, time.Minute, "forward.sh", apiLB+":6443", strings.Join(cps, ","))
	t.Logf("%d nodes in maintenance mode after %s", len(c.members), time.Since(t0).Round(time.Second))

	// The images go in once a node's mTLS API answers, while talops creates the cluster.
	imports := make(chan error, len(c.members))
	for _, m := range c.members {
		go func() { imports <- c.importImages(m, 10*time.Minute) }()
	}

	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")

	r := talopsRun(t, 20*time.Minute, nil, "apply", "--dir", c.dir, "--talosconfig", c.admin, "--format", "json", "--kubeconfig-out", kubeconfig)

	if r.code != 0 {
		t.Fatalf("talops apply of a new cluster: exit %d", r.code)
	}

	for range c.members {
		if err := <-imports; err != nil {
			t.Fatalf("import the images: %v", err)
		}
	}

	t.Logf("talops created the cluster after %s", time.Since(t0).Round(time.Second))

	c.kubeconfig = filepath.Join(t.TempDir(), "kubeconfig-lb")
	c.useKubeconfig(t, kubeconfig)

	for _, m := range c.members {
		eventually(t, "Node "+m.host+" is Ready", 10*time.Minute, func() bool { return c.nodeReady(m.host, time.Time{}) })
	}

	t.Logf("every Node Ready after %s", time.Since(t0).Round(time.Second))

	return c
}

func (c *cluster) controlPlanes() []member {
	var cps []member

	for _, m := range c.members {
		if m.controlPlane {
			cps = append(cps, m)
		}
	}

	return cps
}

func (c *cluster) member(name string) member {
	for _, m := range c.members {
		if m.name == name {
			return m
		}
	}

	panic("no member " + name)
}

func (c *cluster) write(t *testing.T, name, content string) {
	t.Helper()

	path := filepath.Join(c.dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}

	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// writeRepo writes talops.yaml, a fresh secrets bundle (plaintext: made for this test only
// and deleted with it), the harness's Kubernetes-mode patch, each node's hostname, and a
// talosconfig.
func (c *cluster) writeRepo(t *testing.T) {
	t.Helper()

	bundle, err := secrets.NewBundle(secrets.NewFixedClock(time.Now()), config.TalosVersionCurrent)
	if err != nil {
		t.Fatal(err)
	}

	data, err := yaml.Marshal(bundle)
	if err != nil {
		t.Fatal(err)
	}

	c.write(t, "secrets.yaml", string(data))

	patch, err := os.ReadFile(filepath.Join(harness, "k8s-patch.yaml"))
	if err != nil {
		t.Fatal(err)
	}

	// The documents only a control plane may hold go to the control planes.
	var all, cp []string

	for _, doc := range strings.Split(string(patch), "\n---\n") {
		if strings.Contains(doc, "kind: KubeFlannelCNIConfig") || strings.Contains(doc, "kind: KubeProxyConfig") || strings.Contains(doc, "kind: KubeCoreDNSConfig") {
			cp = append(cp, doc)
		} else {
			all = append(all, doc)
		}
	}

	c.write(t, "patches/k8s.yaml", strings.Join(all, "\n---\n"))
	// The kube-apiservers' certificates name the host's forwarder.
	c.write(t, "patches/k8s-controlplane.yaml", strings.Join(append(cp, "apiVersion: v1alpha1\nkind: KubeAPIServerConfig\ncertExtraSANs: ["+apiLB+"]\n"), "\n---\n"))

	var nodes, sans strings.Builder

	for _, m := range c.members {
		role := "worker"
		if m.controlPlane {
			role = "controlplane"
		}

		fmt.Fprintf(&nodes, "  - name: %s\n    address: %s\n    role: %s\n    installDisk: /dev/sda\n    patches: [nodes/%s.yaml]\n", m.name, m.address, role, m.name)
		fmt.Fprintf(&sans, "%s, ", m.address)
		c.write(t, "nodes/"+m.name+".yaml", hostnamePatch(m))
	}

	// The cluster endpoint is the first control plane on the cluster network, as in
	// talosctl's own container clusters; the kubelets and trustd clients dial it there.
	c.write(t, "talops.yaml", `cluster:
  name: cl
  endpoint: https://`+c.members[0].ip+`:6443
talosVersion: `+talosVersion+`
kubernetesVersion: `+k8sVersion+`
secrets: secrets.yaml
platform: metal
patches:
  all: [patches/all.yaml, patches/k8s.yaml]
  controlplane: [patches/k8s-controlplane.yaml]
nodes:
`+nodes.String())
	// The Talos API certificates name the addresses talops dials.
	c.write(t, "patches/all.yaml", "machine:\n  certSANs: ["+strings.TrimSuffix(sans.String(), ", ")+"]\n")

	in, err := generate.NewInput("cl", "https://"+c.members[0].ip+":6443", strings.TrimPrefix(k8sVersion, "v"),
		generate.WithSecretsBundle(bundle), generate.WithRoles(role.MakeSet(role.Admin)))
	if err != nil {
		t.Fatal(err)
	}

	tc, err := in.Talosconfig()
	if err != nil {
		t.Fatal(err)
	}

	for _, ctx := range tc.Contexts {
		ctx.Endpoints = nil
	}

	data, err = tc.Bytes()
	if err != nil {
		t.Fatal(err)
	}

	c.admin = filepath.Join(t.TempDir(), "talosconfig")
	if err := os.WriteFile(c.admin, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// hostnamePatch names the machine after its harness node: in container mode the platform's
// hostname (the rootfs' /etc/hostname) is the same on every node.
func hostnamePatch(m member) string {
	return "apiVersion: v1alpha1\nkind: HostnameConfig\nauto: \"off\"\nhostname: " + m.host + "\n"
}

// importImages puts the images a node runs into it once its mTLS API answers: etcd on the
// control planes, the kubelet, pause and the control plane of both releases.
func (c *cluster) importImages(m member, within time.Duration) error {
	rtclient := filepath.Join(work, "bin", "rtclient")
	deadline := time.Now().Add(within)

	for {
		if _, err := runErr(30*time.Second, rtclient, "version", "-addr", m.endpoint(), "-talosconfig", c.admin); err == nil {
			break
		}

		if time.Now().After(deadline) {
			return fmt.Errorf("%s: the mTLS API did not answer within %s", m.host, within)
		}

		time.Sleep(time.Second)
	}

	args := []string{"k8s", "-addr", m.endpoint(), "-talosconfig", c.admin, "-bootstrap=false",
		"-pause", filepath.Join(work, "images", "pause.tar"),
		"-images", filepath.Join(work, "images", "k8s-"+k8sVersion) + "," + filepath.Join(work, "images", "k8s-"+k8sNext)}
	if m.controlPlane {
		args = append(args, "-etcd", filepath.Join(work, "images", "etcd.tar"))
	}

	_, err := runErr(within, rtclient, args...)

	return err
}

// useKubeconfig writes the admin kubeconfig with the host's forwarder as its server, and
// makes the cluster's client of it.
func (c *cluster) useKubeconfig(t *testing.T, path string) {
	t.Helper()

	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}

	for _, cl := range cfg.Clusters {
		cl.Server = "https://" + apiLB + ":6443"
	}

	if err := clientcmd.WriteToFile(*cfg, c.kubeconfig); err != nil {
		t.Fatal(err)
	}

	rc, err := clientcmd.BuildConfigFromFlags("", c.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}

	rc.Timeout = 10 * time.Second

	if c.kube, err = kubernetes.NewForConfig(rc); err != nil {
		t.Fatal(err)
	}
}

// nodeReady reports whether the Node is Ready with a heartbeat after since.
func (c *cluster) nodeReady(name string, since time.Time) bool {
	n, err := c.kube.CoreV1().Nodes().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return false
	}

	for _, cond := range n.Status.Conditions {
		if cond.Type == corev1.NodeReady {
			return cond.Status == corev1.ConditionTrue && cond.LastHeartbeatTime.After(since)
		}
	}

	return false
}

// talos is a Talos API client of the member.
func (c *cluster) talos(t *testing.T, m member) *client.Client {
	t.Helper()

	cfg, err := clientconfig.Open(c.admin)
	if err != nil {
		t.Fatal(err)
	}

	cl, err := client.New(context.Background(), client.WithConfig(cfg), client.WithEndpoints(m.endpoint()))
	if err != nil {
		t.Fatal(err)
	}

	t.Cleanup(func() { cl.Close() }) //nolint:errcheck // the test is done with it

	return cl
}

// bootID reads the member's boot ID over the Talos API, as talops does.
func (c *cluster) bootID(t *testing.T, m member) string {
	t.Helper()

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	r, err := c.talos(t, m).Read(ctx, "/proc/sys/kernel/random/boot_id")
	if err != nil {
		t.Fatalf("read the boot ID of %s: %v", m.host, err)
	}
	defer r.Close() //nolint:errcheck // read to the end

	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}

	return strings.TrimSpace(string(b))
}

// applyArgs are the arguments of an apply of the repository through the host's forwarder.
func (c *cluster) applyArgs(args ...string) []string {
	return append([]string{"apply", "--dir", c.dir, "--talosconfig", c.admin, "--kubeconfig", c.kubeconfig, "--format", "json"}, args...)
}

// applyReport is the part of apply's JSON view the tests judge.
type applyReport struct {
	Nodes []struct {
		Name     string `json:"name"`
		Action   string `json:"action"`
		Outcome  string `json:"outcome"`
		Rebooted bool   `json:"rebooted"`
		Detail   string `json:"detail"`
	} `json:"nodes"`
}

func parseApply(t *testing.T, r result) applyReport {
	t.Helper()

	var rep applyReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("apply --format json: exit %d, %v\nstdout: %s\nstderr: %s", r.code, err, r.stdout, r.stderr)
	}

	return rep
}

// logs is the tail of every node's log.
func (c *cluster) logs() string {
	var b strings.Builder

	for _, m := range c.members {
		log, _ := os.ReadFile(filepath.Join(work, "nodes", m.host, "machined.log"))
		fmt.Fprintf(&b, "---- machined.log of %s (tail):\n%s\n", m.host, tail(log))
	}

	return b.String()
}

func (c *cluster) hosts() []string {
	var hosts []string
	for _, m := range c.members {
		hosts = append(hosts, m.host)
	}

	return hosts
}

func (c *cluster) stop(t *testing.T) {
	t.Helper()

	if t.Failed() {
		t.Log(c.logs())
	}

	if _, err := runErr(3*time.Minute, "bash", append([]string{filepath.Join(harness, "stop.sh")}, c.hosts()...)...); err != nil {
		t.Error(err)
	}
}

// watchdog ends the test binary after limit with the nodes' logs and the nodes stopped: a
// cluster test that hangs fails fast, and leaves nothing running.
func (c *cluster) watchdog(t *testing.T, limit time.Duration) {
	t.Helper()

	name := t.Name()
	timer := time.AfterFunc(limit, func() {
		fmt.Fprintf(os.Stderr, "%s: not done within %s\n%s", name, limit, c.logs())
		_, _ = runErr(3*time.Minute, "bash", append([]string{filepath.Join(harness, "stop.sh")}, c.hosts()...)...)
		panic(fmt.Sprintf("%s: not done within %s", name, limit))
	})

	t.Cleanup(func() { timer.Stop() })
}

// quorum watches the control planes' etcd from the outside, over each one's Talos API, once
// a second: a member is healthy when it answers EtcdStatus and knows a leader.
type quorum struct {
	mu sync.Mutex
	// polls, and the polls with fewer than two healthy members
	polls, lost int
	// down records each member seen unhealthy at least once
	down map[string]bool
	// worst is the fewest healthy members of any poll, with when and who was down
	worst   int
	worstAt string
	stop    chan struct{}
	done    chan struct{}
}

func (c *cluster) watchQuorum(t *testing.T) *quorum {
	t.Helper()

	q := &quorum{down: map[string]bool{}, worst: 4, stop: make(chan struct{}), done: make(chan struct{})}
	cps := c.controlPlanes()

	clients := map[string]*client.Client{}
	for _, m := range cps {
		clients[m.host] = c.talos(t, m)
	}

	go func() {
		defer close(q.done)

		tick := time.NewTicker(time.Second)
		defer tick.Stop()

		for {
			select {
			case <-q.stop:
				return
			case <-tick.C:
			}

			healthy := 0

			var down []string

			var wg sync.WaitGroup

			var mu sync.Mutex

			for _, m := range cps {
				wg.Go(func() {
					ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
					defer cancel()

					st, err := clients[m.host].EtcdStatus(ctx)

					mu.Lock()
					defer mu.Unlock()

					if err == nil && len(st.GetMessages()) == 1 && st.GetMessages()[0].GetMemberStatus().GetLeader() != 0 {
						healthy++
					} else {
						down = append(down, m.host)
					}
				})
			}

			wg.Wait()

			q.mu.Lock()
			q.polls++
			if healthy < 2 {
				q.lost++
			}

			for _, h := range down {
				q.down[h] = true
			}

			if healthy < q.worst {
				q.worst, q.worstAt = healthy, fmt.Sprintf("%s: down %v", time.Now().Format(time.TimeOnly), down)
			}
			q.mu.Unlock()
		}
	}()

	return q
}

// end stops the watch.
func (q *quorum) end() {
	close(q.stop)
	<-q.done
}

// members is the etcd member list as the control plane m reports it.
func (c *cluster) etcdMembers(t *testing.T, m member) []string {
	t.Helper()

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	r, err := c.talos(t, m).EtcdMemberList(ctx, &machine.EtcdMemberListRequest{})
	if err != nil {
		t.Fatalf("etcd members of %s: %v", m.host, err)
	}

	var names []string
	for _, msg := range r.GetMessages() {
		for _, mm := range msg.GetMembers() {
			names = append(names, mm.GetHostname())
		}
	}

	return names
}
