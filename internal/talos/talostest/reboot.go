package talostest

import (
	"context"
	"fmt"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/cosi-project/runtime/pkg/safe"
	"github.com/siderolabs/talos/pkg/machinery/resources/runtime"
	"google.golang.org/grpc"
)

// Reboot is how long each phase of a reboot lasts on a fake node. A zero field takes
// DefaultRebootPhase.
type Reboot struct {
	// Answering is how long the node keeps answering with its old boot ID once the
	// reboot is triggered (its services stopping).
	Answering time.Duration
	// Down is how long nothing listens on the node's address.
	Down time.Duration
	// Booting is how long the node answers in machine stage booting, not ready, before
	// it is running again.
	Booting time.Duration
}

// DefaultRebootPhase is short, so that tests that reboot nodes stay fast.
const DefaultRebootPhase = 20 * time.Millisecond

func (r Reboot) withDefaults() Reboot {
	for _, d := range []*time.Duration{&r.Answering, &r.Down, &r.Booting} {
		if *d <= 0 {
			*d = DefaultRebootPhase
		}
	}

	return r
}

// host serves a node's API on one address, and stops and starts it as the node reboots.
// It keeps the port while the node is down (another test could take a port let go) and
// drops every connection at once then, as a host that is down refuses it.
type host struct {
	addr      string
	newServer func() *grpc.Server

	mu     sync.Mutex
	lis    net.Listener
	srv    *grpc.Server
	cur    *session
	closed bool
}

// session is the listener one boot's gRPC server serves: the connections the host accepts
// while that boot is up.
type session struct {
	addr  net.Addr
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func (s *session) Accept() (net.Conn, error) {
	select {
	case c := <-s.conns:
		return c, nil
	case <-s.done:
		return nil, net.ErrClosed
	}
}

func (s *session) Close() error {
	s.once.Do(func() { close(s.done) })

	return nil
}

func (s *session) Addr() net.Addr { return s.addr }

func (h *host) up() error {
	h.mu.Lock()
	defer h.mu.Unlock()

	if h.closed || h.srv != nil {
		return nil
	}

	if h.lis == nil {
		lis, err := net.Listen("tcp", h.addr)
		if err != nil {
			return err
		}

		h.lis, h.addr = lis, lis.Addr().String()

		go h.accept(lis)
	}

	h.cur = &session{addr: h.lis.Addr(), conns: make(chan net.Conn), done: make(chan struct{})}
	h.srv = h.newServer()

	go h.srv.Serve(h.cur) //nolint:errcheck // ends with Stop

	return nil
}

// accept hands each connection to the boot that is up, or drops it while none is.
func (h *host) accept(lis net.Listener) {
	for {
		c, err := lis.Accept()
		if err != nil {
			return
		}

		h.mu.Lock()
		s := h.cur
		h.mu.Unlock()

		if s == nil {
			c.Close() //nolint:errcheck // refused

			continue
		}

		select {
		case s.conns <- c:
		case <-s.done:
			c.Close() //nolint:errcheck // refused
		}
	}
}

func (h *host) down() {
	h.mu.Lock()
	srv := h.srv
	h.srv, h.cur = nil, nil
	h.mu.Unlock()

	if srv == nil {
		return
	}

	// Calls under way finish first, as a node's services answer before they stop (an
	// answer cut off mid-write would read as EOF on a loaded machine); streams that do not
	// end by themselves are cut.
	done := make(chan struct{})

	go func() {
		srv.GracefulStop()
		close(done)
	}()

	select {
	case <-done:
	case <-time.After(gracefulStop):
		srv.Stop()
		<-done
	}
}

// gracefulStop bounds how long a node going down waits for the calls under way.
const gracefulStop = 200 * time.Millisecond

func (h *host) close() {
	h.mu.Lock()
	h.closed = true
	lis := h.lis
	h.mu.Unlock()

	h.down()

	if lis != nil {
		lis.Close() //nolint:errcheck // the test ends
	}
}

// reboot starts a reboot unless one is under way; m.mu is held. The node answers for a
// while, goes away, boots (new boot ID, the persisted config, an installed image) and
// answers in stage booting, then running.
func (m *machineService) reboot() {
	if m.rebooting {
		return
	}

	m.rebooting = true
	timing := m.node.Reboot.withDefaults()

	m.wg.Go(func() {
		if !m.sleep(timing.Answering) {
			return
		}

		m.host.down()

		m.mu.Lock()
		err := m.boot(context.Background())
		m.mu.Unlock()

		if err != nil || !m.sleep(timing.Down) {
			return
		}

		if err := m.host.up(); err != nil || !m.sleep(timing.Booting) {
			return
		}

		m.mu.Lock()
		defer m.mu.Unlock()

		m.rebooting = false
		_ = m.setStage(context.Background(), runtime.MachineStageRunning) // in-memory state
	})
}

// sleep waits d, or less when the test ends; it reports whether the node still runs.
func (m *machineService) sleep(d time.Duration) bool {
	select {
	case <-time.After(d):
		return true
	case <-m.done:
		return false
	}
}

// setStage sets the machine's stage: booting waits on the services a boot starts last and
// on the Kubernetes node; running is ready unless the node has conditions it never meets.
func (m *machineService) setStage(ctx context.Context, stage runtime.MachineStage) error {
	ms, err := safe.StateGetByID[*runtime.MachineStatus](ctx, m.state, runtime.MachineStatusID)
	if err != nil {
		return err
	}

	unmet := m.node.Unmet

	switch {
	case stage == runtime.MachineStageBooting:
		unmet = bootingConditions(m.node.Name, m.controlPlane.Load())
	case m.version != "" && m.version == m.node.UnhealthyOn:
		unmet = append(slices.Clone(unmet), runtime.UnmetCondition{Name: "services", Reason: "kubelet not running"})
	}

	ms.TypedSpec().Stage = stage
	ms.TypedSpec().Status.Ready = len(unmet) == 0
	ms.TypedSpec().Status.UnmetConditions = unmet

	return m.state.Update(ctx, ms)
}

// bootingConditions are what a booting node waits for, worded as machined's
// MachineStatusController does (servicesCheck and nodeReadyCheck of
// internal/app/machined/pkg/controllers/runtime/machine_status.go, v1.14.1).
func bootingConditions(name string, controlPlane bool) []runtime.UnmetCondition {
	services := "kubelet not running"
	if controlPlane {
		services += ", etcd not running"
	}

	return []runtime.UnmetCondition{
		{Name: "services", Reason: services},
		{Name: "nodeReady", Reason: fmt.Sprintf("node %q is not ready", name)},
	}
}
