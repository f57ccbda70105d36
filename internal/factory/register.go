package factory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/talops/talops/internal/schematic"
)

// Register posts the schematic's canonical encoding to the factory and
// returns the ID the factory gives it. The factory builds images and
// installers only for schematics it has received, so this must happen before
// anything pulls them. A refusal is an *InvalidSchematicError.
func (c *Client) Register(ctx context.Context, s *schematic.Schematic) (string, error) {
	const op = "register schematic"

	body, err := s.Marshal()
	if err != nil {
		return "", fmt.Errorf("%s: %w", op, err)
	}

	resp, err := c.do(ctx, request{
		op: op, method: http.MethodPost, path: "/schematics",
		body: body, contentType: "application/yaml",
	})
	if err != nil {
		var se *StatusError
		if errors.As(err, &se) && se.StatusCode == http.StatusBadRequest {
			return "", &InvalidSchematicError{Details: se.Body, Err: se}
		}

		return "", err
	}

	// Newer factories also return the normalised schematic; the ID is all
	// talops needs, and it is checked against its own.
	var answer struct {
		ID string `json:"id"`
	}

	if err := json.Unmarshal(resp, &answer); err != nil {
		return "", fmt.Errorf("%s: decode the factory's answer: %w", op, err)
	}

	if !isID(answer.ID) {
		return "", fmt.Errorf("%s: the factory answered without a schematic ID: %q", op, errorBody(resp))
	}

	return answer.ID, nil
}

// RegisterVerified is Register that also requires the factory's ID to equal
// the one computed locally (*IDMismatchError otherwise). It returns the
// factory's ID either way.
func (c *Client) RegisterVerified(ctx context.Context, s *schematic.Schematic) (string, error) {
	local, err := s.ID()
	if err != nil {
		return "", fmt.Errorf("register schematic: %w", err)
	}

	id, err := c.Register(ctx, s)
	if err != nil {
		return "", err
	}

	return id, CheckID(local, id)
}

// CheckID returns an *IDMismatchError when the factory's ID differs from the
// local one.
func CheckID(local, factory string) error {
	if local != factory {
		return &IDMismatchError{Local: local, Factory: factory}
	}

	return nil
}

func isID(s string) bool {
	if len(s) != 64 {
		return false
	}

	for _, r := range s {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}

	return true
}
