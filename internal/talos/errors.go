package talos

import (
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// What a Talos API error means to a caller, told from its gRPC status here alone, so that
// no layer above the adapter matches status codes.

// Unimplemented says the node's release does not serve the call.
func Unimplemented(err error) bool { return status.Code(err) == codes.Unimplemented }

// Unavailable says the node did not answer (it is booting, or its apid is down).
func Unavailable(err error) bool { return status.Code(err) == codes.Unavailable }

// NotYet says the node refused the call for now (time not synced, services starting).
func NotYet(err error) bool { return status.Code(err) == codes.FailedPrecondition }

// TimedOut says the call ran out of its deadline on the node's side.
func TimedOut(err error) bool { return status.Code(err) == codes.DeadlineExceeded }
