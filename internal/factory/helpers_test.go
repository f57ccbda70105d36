package factory_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/talops/talops/internal/factory"
	"github.com/talops/talops/internal/factory/factorytest"
)

// sleeps records the waits between attempts instead of waiting.
type sleeps struct {
	mu     sync.Mutex
	delays []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()

	s.delays = append(s.delays, d)

	return ctx.Err()
}

func (s *sleeps) got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()

	return append([]time.Duration(nil), s.delays...)
}

func newClient(t *testing.T, fake *factorytest.Server, opts ...factory.Option) (*factory.Client, *sleeps) {
	t.Helper()

	sl := &sleeps{}

	c, err := factory.New(fake.URL(), append([]factory.Option{
		factory.WithHTTPClient(fake.Client()),
		factory.WithSleep(sl.sleep),
	}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}

	return c, sl
}
