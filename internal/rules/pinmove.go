package rules

import (
	"strings"

	"github.com/talops/talops/internal/catalog"
)

// PinMove is the edit that makes an exact nvidia.driver pin follow the driver the head
// release installs, when the bump breaks the pin within its branch: a Talos patch that
// moves the driver from 580.173.02 to 580.178.04 moves the pin with it, in the same pull
// request. ok is false when there is nothing to move or the move is no routine one: a
// branch pin ("580", which holds within its branch and must not follow a branch change),
// a driver of another branch (a change of its own, which the nvidia.driver-pin finding
// asks for), a driver the release data does not give, or GPU nodes that would need
// different pins. The new pin keeps the old one's precision: "580.173" becomes "580.178".
func PinMove(b *Bump) (move Change, ok bool) {
	var pin, driver string

	for _, g := range b.GPUNodes {
		if g.Pin == "" {
			return Change{}, false
		}

		if _, valid := catalog.DriverBranch(g.Driver.To); !valid {
			return Change{}, false
		}

		switch {
		case driver == "":
			pin, driver = g.Pin, g.Driver.To
		case g.Driver.To != driver:
			return Change{}, false
		}
	}

	if driver == "" || catalog.DriverMatchesPin(driver, pin) {
		return Change{}, false
	}

	parts := strings.Split(pin, ".")
	if len(parts) < 2 {
		return Change{}, false
	}

	target := strings.Split(driver, ".")
	if target[0] != parts[0] || len(target) < len(parts) {
		return Change{}, false
	}

	return Change{From: pin, To: strings.Join(target[:len(parts)], ".")}, true
}
