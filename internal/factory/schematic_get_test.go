package factory_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/talops/talops/internal/factory"
	"github.com/talops/talops/internal/factory/factorytest"
)

// gpuYAML is the factory's encoding of gpuSchematic, as GET /schematics/{id} answers it.
const gpuYAML = `customization:
    systemExtensions:
        officialExtensions:
            - siderolabs/binfmt-misc
            - siderolabs/crun
            - siderolabs/iscsi-tools
            - siderolabs/nonfree-kmod-nvidia-production
            - siderolabs/nvidia-container-toolkit-production
            - siderolabs/util-linux-tools
            - siderolabs/vmtoolsd-guest-agent
`

func TestSchematic_GetsTheSchematicOfAnIDAndChecksIt(t *testing.T) {
	id, err := gpuSchematic(t).ID()
	if err != nil {
		t.Fatal(err)
	}

	fake := factorytest.New(t)
	fake.ExpectSchematic(id, gpuYAML)

	c, _ := newClient(t, fake)

	s, err := c.Schematic(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}

	if got, _ := s.ID(); got != id {
		t.Errorf("the schematic's ID is %s, want %s", got, id)
	}
}

func TestSchematic_AnAnswerOfAnotherIDIsRefused(t *testing.T) {
	const other = "376567988ad370138ad8b2698212367b8edcb69b5fd68c80be1f2ec7d603b4ba"

	fake := factorytest.New(t)
	fake.ExpectSchematic(other, gpuYAML)

	c, _ := newClient(t, fake)

	var mismatch *factory.IDMismatchError
	if _, err := c.Schematic(t.Context(), other); !errors.As(err, &mismatch) {
		t.Fatalf("want an ID mismatch, got %v", err)
	}
}

func TestSchematic_AnIDTheFactoryDoesNotKnowIsA404(t *testing.T) {
	const unknown = "0000000000000000000000000000000000000000000000000000000000000000"

	fake := factorytest.New(t)
	fake.ExpectSchematic(unknown, "").Respond(http.StatusNotFound, "schematic not found")

	c, _ := newClient(t, fake)

	_, err := c.Schematic(t.Context(), unknown)

	var se *factory.StatusError
	if !errors.As(err, &se) || se.StatusCode != http.StatusNotFound || !strings.Contains(err.Error(), "schematic not found") {
		t.Fatalf("want a 404 status error, got %v", err)
	}
}
