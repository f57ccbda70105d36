package factory_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/talops/talops/internal/factory"
	"github.com/talops/talops/internal/factory/factorytest"
	"github.com/talops/talops/internal/schematic"
)

// gpuSchematic is test vector 14 (NVIDIA production drivers and tools), whose ID the
// real factory computed: the fake answers that ID, so a test that compares it with
// talops' own proves the computation.
func gpuSchematic(t testing.TB) *schematic.Schematic {
	t.Helper()

	s, err := schematic.Load([]byte(`customization:
  systemExtensions:
    officialExtensions:
      - siderolabs/binfmt-misc
      - siderolabs/crun
      - siderolabs/iscsi-tools
      - siderolabs/nonfree-kmod-nvidia-production
      - siderolabs/nvidia-container-toolkit-production
      - siderolabs/util-linux-tools
      - siderolabs/vmtoolsd-guest-agent
`))
	if err != nil {
		t.Fatal(err)
	}

	return s
}

func TestRegister_PostsCanonicalYAMLAndReturnsTheFactoryID(t *testing.T) {
	s := gpuSchematic(t)
	fake := factorytest.New(t)
	fake.ExpectRegister(s)

	c, _ := newClient(t, fake)

	id, err := c.Register(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}

	local, _ := s.ID()
	if id != local {
		t.Errorf("Register = %s, want %s", id, local)
	}

	canonical, _ := s.Marshal()
	reqs := fake.Requests()

	if len(reqs) != 1 || string(reqs[0].Body) != string(canonical) || reqs[0].ContentType != "application/yaml" {
		t.Errorf("request = %+v, want the canonical encoding as application/yaml:\n%s", reqs, canonical)
	}
}

func TestRegisterVerified_SameIDSucceeds(t *testing.T) {
	s := gpuSchematic(t)
	fake := factorytest.New(t)
	fake.ExpectRegister(s)

	c, _ := newClient(t, fake)

	if _, err := c.RegisterVerified(t.Context(), s); err != nil {
		t.Fatalf("RegisterVerified: %v", err)
	}
}

func TestRegisterVerified_FactoryGivesAnotherID_IDMismatchError(t *testing.T) {
	const other = "0000000000000000000000000000000000000000000000000000000000000001"

	s := gpuSchematic(t)
	fake := factorytest.New(t)
	fake.ExpectRegister(s).AnswerID(other)

	c, _ := newClient(t, fake)

	id, err := c.RegisterVerified(t.Context(), s)

	var mm *factory.IDMismatchError
	if !errors.As(err, &mm) {
		t.Fatalf("RegisterVerified error = %v, want *IDMismatchError", err)
	}

	local, _ := s.ID()
	if mm.Local != local || mm.Factory != other || id != other {
		t.Errorf("mismatch = %+v, id %s; want local %s, factory %s", mm, id, local, other)
	}
}

func TestRegister_FactoryRefuses_InvalidSchematicError(t *testing.T) {
	s := &schematic.Schematic{Owner: "someone"}
	fake := factorytest.New(t)
	fake.ExpectRegister(s).Respond(http.StatusBadRequest, "owner field is only supported in Enterprise edition")

	c, sl := newClient(t, fake)

	_, err := c.Register(t.Context(), s)

	var inv *factory.InvalidSchematicError
	if !errors.As(err, &inv) {
		t.Fatalf("Register error = %v, want *InvalidSchematicError", err)
	}

	if inv.Details != "owner field is only supported in Enterprise edition" {
		t.Errorf("details = %q", inv.Details)
	}

	if len(sl.got()) != 0 {
		t.Errorf("a refusal was retried: waits %v", sl.got())
	}
}

func TestRegister_AnswerWithoutID_Error(t *testing.T) {
	fake := factorytest.New(t)
	fake.ExpectRegister(nil).Respond(http.StatusCreated, `{"schematic": "customization: {}\n"}`)

	c, _ := newClient(t, fake)

	_, err := c.Register(t.Context(), &schematic.Schematic{})
	if err == nil || !strings.Contains(err.Error(), "without a schematic ID") {
		t.Errorf("Register error = %v, want one about the missing ID", err)
	}
}

func TestCheckID(t *testing.T) {
	if err := factory.CheckID(schematic.VanillaID, schematic.VanillaID); err != nil {
		t.Errorf("CheckID of equal IDs = %v", err)
	}

	var mm *factory.IDMismatchError
	if err := factory.CheckID("a", "b"); !errors.As(err, &mm) || mm.Local != "a" || mm.Factory != "b" {
		t.Errorf("CheckID(a, b) = %v", err)
	}
}

func TestRegister_RefusalWithMarkupIsQuotedOnOneLine(t *testing.T) {
	s := &schematic.Schematic{Owner: "someone"}
	fake := factorytest.New(t)
	fake.ExpectRegister(s).Respond(http.StatusBadRequest, "bad\n<!-- talops:plan-hash 1111 -->\n`x`")

	c, _ := newClient(t, fake)

	_, err := c.Register(t.Context(), s)

	const want = "register schematic: the image factory refused it: \"bad\\n<!-- talops:plan-hash 1111 -->\\n`x`\""
	if err == nil || err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
}

func TestRegisterVerified_TalopsIDsAreTheOnesTheRealFactoryGave(t *testing.T) {
	for _, r := range factorytest.RealIDs {
		t.Run(r.Name, func(t *testing.T) {
			s, err := schematic.Load([]byte(r.YAML))
			if err != nil {
				t.Fatal(err)
			}

			fake := factorytest.New(t)
			fake.ExpectRegister(s)

			c, _ := newClient(t, fake)

			if id, err := c.RegisterVerified(t.Context(), s); err != nil || id != r.ID {
				t.Errorf("RegisterVerified = %s, %v; want the real %s", id, err, r.ID)
			}
		})
	}
}
