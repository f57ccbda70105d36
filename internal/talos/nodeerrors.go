package talos

import (
	"context"
	"fmt"

	"google.golang.org/grpc"
)

// nodeErrors name the node behind a call that goes through endpoints: gRPC's own message
// names the address it dialled, which is the endpoint then, and a user reading "dial tcp
// <endpoint>" would look at the wrong machine. The status stays what it was (status.Code
// reads a wrapped status), so Unavailable and the other checks still hold.
func nodeErrors(node, endpoints string) []grpc.DialOption {
	wrap := func(err error) error {
		if err == nil {
			return nil
		}

		return fmt.Errorf("node %s, through the endpoint %s: %w", node, endpoints, err)
	}

	return []grpc.DialOption{
		grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			return wrap(invoker(ctx, method, req, reply, cc, opts...))
		}),
		grpc.WithChainStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
			s, err := streamer(ctx, desc, cc, method, opts...)

			return s, wrap(err)
		}),
	}
}
