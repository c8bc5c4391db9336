package approval

import "fmt"

// A state is where one call stands. Only statePending has transitions.
type state string

const (
	statePending       state = "pending"
	stateAllowedOnce   state = "allowed_once"
	stateAllowedAlways state = "allowed_always"
	stateAllowedAll    state = "allowed_all"
	stateAllowedRO     state = "allowed_read_only"
	stateDenied        state = "denied"
	stateCancelled     state = "cancelled"
)

// outcomes maps each decision to the state it leads to from statePending.
var outcomes = map[Decision]state{
	AllowOnce:     stateAllowedOnce,
	AllowAlways:   stateAllowedAlways,
	AllowAll:      stateAllowedAll,
	AllowReadOnly: stateAllowedRO,
	Deny:          stateDenied,
	Cancelled:     stateCancelled,
}

// errFinal means a decision reached a call that was already resolved.
var errFinal = fmt.Errorf("call already resolved: %w", ErrUnknownRequest)

// next returns the state s moves to on decision d. It fails, leaving the
// caller's state alone, when s is final or d is not a decision.
func (s state) next(d Decision) (state, error) {
	to, ok := outcomes[d]
	if !ok {
		return s, fmt.Errorf("%w: %q", ErrInvalidDecision, d)
	}
	if s != statePending {
		return s, fmt.Errorf("%w (%s)", errFinal, s)
	}
	return to, nil
}
