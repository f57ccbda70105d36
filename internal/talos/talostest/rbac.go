package talostest

import (
	"context"
	"fmt"
	"strings"

	"github.com/cosi-project/runtime/pkg/resource"
	"github.com/cosi-project/runtime/pkg/resource/meta"
	"github.com/cosi-project/runtime/pkg/safe"
	"github.com/cosi-project/runtime/pkg/state"
	"github.com/siderolabs/talos/pkg/machinery/constants"
	"github.com/siderolabs/talos/pkg/machinery/role"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
)

// errNotAuthorized is authz.ErrNotAuthorized of pkg/grpc/middleware/authz (v1.12–v1.14).
var errNotAuthorized = status.Error(codes.PermissionDenied, "not authorized")

// rules are the roles machined allows for the methods the fake serves, copied from the
// rules table of internal/app/machined/pkg/system/services/machined.go (v1.14.1; the
// same entries in v1.13.9). A method not listed needs os:admin, machined's FallbackRoles.
var rules = map[string]role.Set{
	"/machine.ImageService/Pull":        role.MakeSet(role.Admin, role.Operator),
	"/machine.LifecycleService/Upgrade": role.MakeSet(role.Admin),
	// os:reader only in maintenance mode, which ApplyConfiguration checks itself.
	"/machine.MachineService/ApplyConfiguration":   role.MakeSet(role.Admin, role.Reader),
	"/machine.MachineService/Bootstrap":            role.MakeSet(role.Admin),
	"/machine.MachineService/EtcdLeaveCluster":     role.MakeSet(role.Admin),
	"/machine.MachineService/EtcdMemberList":       role.MakeSet(role.Admin, role.Operator, role.Reader, role.EtcdBackup),
	"/machine.MachineService/EtcdRecover":          role.MakeSet(role.Admin),
	"/machine.MachineService/EtcdRemoveMemberByID": role.MakeSet(role.Admin),
	"/machine.MachineService/EtcdSnapshot":         role.MakeSet(role.Admin, role.Operator, role.EtcdBackup),
	"/machine.MachineService/EtcdStatus":           role.MakeSet(role.Admin, role.Operator, role.Reader, role.EtcdBackup),
	"/machine.MachineService/Kubeconfig":           role.MakeSet(role.Admin),
	"/machine.MachineService/Read":                 role.MakeSet(role.Admin),
	"/machine.MachineService/Reboot":               role.MakeSet(role.Admin, role.Operator),
	"/machine.MachineService/Reset":                role.MakeSet(role.Admin),
	"/machine.MachineService/Upgrade":              role.MakeSet(role.Admin),
	"/machine.MachineService/Version":              role.MakeSet(role.Admin, role.Operator, role.Reader),
	"/cosi.resource.State/Create":                  role.MakeSet(role.Admin),
	"/cosi.resource.State/Destroy":                 role.MakeSet(role.Admin),
	"/cosi.resource.State/Teardown":                role.MakeSet(role.Admin),
	"/cosi.resource.State/TeardownAndDestroy":      role.MakeSet(role.Admin),
	"/cosi.resource.State/Get":                     role.MakeSet(role.Admin, role.Operator, role.Reader),
	"/cosi.resource.State/List":                    role.MakeSet(role.Admin, role.Operator, role.Reader),
	"/cosi.resource.State/Update":                  role.MakeSet(role.Admin),
	"/cosi.resource.State/Watch":                   role.MakeSet(role.Admin, role.Operator, role.Reader),
}

type rolesKey struct{}

// peerRoles reads the roles as apid's authz.Injector does in Enabled mode: from the
// Organization of the client certificate, and from the talos-role metadata when that
// certificate has os:impersonator. Unknown organizations give no role.
func peerRoles(ctx context.Context) role.Set {
	p, ok := peer.FromContext(ctx)
	if !ok {
		return role.Zero
	}

	info, ok := p.AuthInfo.(credentials.TLSInfo)
	if !ok || len(info.State.PeerCertificates) == 0 {
		return role.Zero
	}

	roles, _ := role.Parse(info.State.PeerCertificates[0].Subject.Organization)

	if roles.Includes(role.Impersonator) {
		if md, ok := metadata.FromIncomingContext(ctx); ok {
			if asked := md.Get(constants.APIAuthzRoleMetadataKey); len(asked) > 0 {
				roles, _ = role.Parse(asked)
			}
		}
	}

	return roles
}

func rolesFrom(ctx context.Context) role.Set {
	roles, _ := ctx.Value(rolesKey{}).(role.Set)

	return roles
}

// authorizer is authz.Authorizer with machined's rules. In maintenance mode (readonly)
// apid's injector runs as ReadOnlyWithAdminOnSiderolink: every client is os:reader.
type authorizer struct{ readonly bool }

func (a authorizer) authorize(ctx context.Context, method string) (context.Context, error) {
	roles := peerRoles(ctx)
	if a.readonly {
		roles = role.MakeSet(role.Reader)
	}

	allowed, ok := rules[method]
	if !ok {
		allowed = role.MakeSet(role.Admin)
	}

	if !allowed.IncludesAny(roles) {
		return ctx, errNotAuthorized
	}

	return context.WithValue(ctx, rolesKey{}, roles), nil
}

func (a authorizer) unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	ctx, err := a.authorize(ctx, info.FullMethod)
	if err != nil {
		return nil, err
	}

	return handler(ctx, req)
}

func (a authorizer) stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	ctx, err := a.authorize(ss.Context(), info.FullMethod)
	if err != nil {
		return err
	}

	return handler(srv, &authorizedStream{ServerStream: ss, ctx: ctx})
}

type authorizedStream struct {
	grpc.ServerStream

	ctx context.Context
}

func (s *authorizedStream) Context() context.Context { return s.ctx }

// accessPolicy is what machined puts in front of its resources (AccessPolicy of
// internal/app/resources/access.go, v1.14.1): read-only, registered types and namespaces
// only, and os:admin for the sensitive ones (the machine config among them).
func accessPolicy(st state.State) state.FilteringRule {
	return func(ctx context.Context, access state.Access) error {
		if !access.Verb.Readonly() {
			return status.Error(codes.PermissionDenied, "write access is not allowed")
		}

		rd, err := safe.StateGet[*meta.ResourceDefinition](ctx, st, resource.NewMetadata(meta.NamespaceName, meta.ResourceDefinitionType, strings.ToLower(access.ResourceType), resource.VersionUndefined))
		if err != nil {
			if state.IsNotFoundError(err) {
				return status.Error(codes.PermissionDenied, fmt.Sprintf("resource type %q is not supported", access.ResourceType))
			}

			return err
		}

		if rd.TypedSpec().Sensitivity == meta.Sensitive && !rolesFrom(ctx).Includes(role.Admin) {
			return errNotAuthorized
		}

		_, err = safe.StateGet[*meta.Namespace](ctx, st, resource.NewMetadata(meta.NamespaceName, meta.NamespaceType, access.ResourceNamespace, resource.VersionUndefined))
		if err != nil {
			if state.IsNotFoundError(err) {
				return status.Error(codes.PermissionDenied, fmt.Sprintf("namespace %q is not supported", access.ResourceNamespace))
			}

			return err
		}

		return nil
	}
}
