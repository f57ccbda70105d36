//go:build realtalos && k8s && cluster

package realcluster

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// bootFile is a file of machine.files: Talos 1.14 writes those only at boot, so changing it
// needs a reboot.
const bootFile = "/var/talops-cluster-e2e.txt"

// needReboot gives the member a change that takes a reboot.
func (c *cluster) needReboot(t *testing.T, m member, content string) {
	t.Helper()

	c.write(t, "nodes/"+m.name+".yaml", hostnamePatch(m)+"---\nmachine:\n  files:\n    - path: "+bootFile+"\n      op: create\n      permissions: 0o644\n      content: "+content+"\n")
}

// readFile reads a file of the member over the Talos API.
func (c *cluster) readFile(t *testing.T, m member, path string) string {
	t.Helper()

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	r, err := c.talos(t, m).Read(ctx, path)
	if err != nil {
		return ""
	}
	defer r.Close() //nolint:errcheck // read to the end

	b, _ := io.ReadAll(r)

	return strings.TrimSpace(string(b))
}

// A change that needs a reboot rolls over the three control planes one at a time: talops
// reboots each itself, waits for its new boot ID and its health gate, and uncordons it before
// the next. Watched from the outside once a second, etcd never has fewer than two healthy
// members, and every member was down once (each reboot was seen). Meanwhile a second apply,
// of another node, is refused by the first apply's Lease.
func TestCluster_ARebootingChangeRollsOverTheControlPlanesKeepingQuorum(t *testing.T) {
	c := newCluster(t, 1, 50*time.Minute)
	cps := c.controlPlanes()

	before := map[string]string{}
	for _, m := range cps {
		before[m.host] = c.bootID(t, m)
		c.needReboot(t, m, "written at boot by "+m.host)
	}

	q := c.watchQuorum(t)
	first := talopsStart(t, 30*time.Minute, []string{"USER=first-e2e"}, c.applyArgs()...)

	// The second apply starts once the first has rebooted a node: it holds the Lease.
	eventually(t, "the first apply reboots a control plane", 10*time.Minute, func() bool {
		q.mu.Lock()
		defer q.mu.Unlock()

		return len(q.down) > 0
	})

	// A change of the worker, made after the first apply read the repository: the second apply
	// has something to do, so it needs the Lease.
	w1 := c.member("w1")
	c.write(t, "nodes/w1.yaml", hostnamePatch(w1)+"---\nmachine:\n  sysctls:\n    net.ipv4.tcp_fin_timeout: \"45\"\n")

	second := talopsRun(t, 5*time.Minute, []string{"USER=second-e2e"}, c.applyArgs("--nodes", "w1")...)
	if second.code == 0 || !strings.Contains(second.stderr, "is being applied by first-e2e@") {
		t.Errorf("a second apply during the first: exit %d, stderr %q; want it refused naming first-e2e", second.code, second.stderr)
	}

	r := <-first
	q.end()
	t.Logf("first apply → exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)

	// Quorum first: it is judged whatever the apply's outcome.
	t.Logf("etcd watched %d times: fewest healthy members %d (%s); members seen down %v", q.polls, q.worst, q.worstAt, q.down)

	if q.lost > 0 {
		t.Errorf("etcd had fewer than two healthy members in %d of %d polls (worst %d at %s)", q.lost, q.polls, q.worst, q.worstAt)
	}

	rep := parseApply(t, r)
	if r.code != 0 {
		t.Fatalf("the rolling apply: exit %d", r.code)
	}

	rebooted := map[string]bool{}
	for _, n := range rep.Nodes {
		rebooted[n.Name] = n.Rebooted
	}

	for _, m := range cps {
		if !rebooted[m.name] {
			t.Errorf("apply does not report %s rebooted", m.name)
		}

		if !q.down[m.host] {
			t.Errorf("etcd on %s was never seen down: no reboot was watched", m.host)
		}

		if id := c.bootID(t, m); id == before[m.host] {
			t.Errorf("%s kept its boot ID %s: it did not reboot", m.host, id)
		}

		if got := c.readFile(t, m, bootFile); got != "written at boot by "+m.host {
			t.Errorf("%s: %s is %q after its reboot", m.host, bootFile, got)
		}

		n, err := c.kube.CoreV1().Nodes().Get(context.Background(), m.host, metav1.GetOptions{})
		if err != nil || n.Spec.Unschedulable {
			t.Errorf("Node %s after the rollout: %v, cordoned %v", m.host, err, err == nil && n.Spec.Unschedulable)
		}
	}

	if members := c.etcdMembers(t, cps[0]); len(members) != 3 {
		t.Errorf("etcd members after the rollout: %v, want the three control planes", members)
	}
}
