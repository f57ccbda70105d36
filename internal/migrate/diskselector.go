package migrate

import (
	"errors"
	"strings"

	"github.com/siderolabs/talos/pkg/machinery/config/types/v1alpha1"
	"go.yaml.in/yaml/v4"
)

// diskSelectorMatch is the CEL expression Talos matches machine.install.diskSelector with
// ("" without one): the v1alpha1 selector becomes provisioning.diskSelector.match, the
// expression machinery itself builds from it, so the same disk is chosen.
func diskSelectorMatch(install *yaml.Node) (string, error) {
	_, sel := get(install, "diskSelector")
	if sel == nil {
		return "", nil
	}

	if _, disk := get(install, "disk"); disk != nil {
		return "", errors.New("set beside disk: keep one of them, then migrate")
	}

	var selector v1alpha1.InstallDiskSelector
	if err := sel.Decode(&selector); err != nil {
		return "", err
	}

	expr, err := (&v1alpha1.InstallConfig{InstallDiskSelector: &selector}).DiskMatchExpression()
	if err != nil {
		return "", err
	}

	if expr == nil {
		return "", nil
	}

	return OneLineCEL(expr.String()), nil
}

// OneLineCEL is an expression machinery printed on one line: its printer breaks long
// expressions at a space, which reads badly in a YAML value and means nothing.
func OneLineCEL(expr string) string {
	return strings.ReplaceAll(expr, "\n", " ")
}
