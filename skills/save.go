package skills

import (
	"context"
	"errors"
	"fmt"
)

// SaveOptions are the checks and choices of one save.
type SaveOptions struct {
	// Overwrite replaces a skill of the same name (kept as a previous
	// version).
	Overwrite bool
	// Compile checks code in its language, as a run would compile it. A
	// *CodeError return (line and message) is the skill's syntax error;
	// another error means the check itself failed. Nil skips the check.
	Compile func(ctx context.Context, language, code string) error
	// Refuse says why text (code, description, notes or a schema) must
	// not be saved, or "": the proxy refuses a PII token of the saving
	// session, which would mean nothing in another. Nil refuses nothing.
	Refuse func(text string) string
}

// Save checks s and keeps it in st: Validate, Refuse, then Compile (the
// costly check last), then st.Save.
func Save(ctx context.Context, st Store, s *Skill, o *SaveOptions) error {
	if o == nil {
		o = &SaveOptions{}
	}
	if err := s.Validate(); err != nil {
		return err
	}
	if o.Refuse != nil {
		for _, part := range []struct{ what, text string }{
			{"code", s.Code}, {"description", s.Description}, {"notes", s.Notes},
			{"parameters", string(s.Parameters)}, {"result", string(s.Result)},
		} {
			if why := o.Refuse(part.text); why != "" {
				return fmt.Errorf("skill %s: the %s %s", s.Name, part.what, why)
			}
		}
	}
	if o.Compile != nil {
		if err := o.Compile(ctx, s.Language, s.Code); err != nil {
			if ce, ok := errors.AsType[*CodeError](err); ok {
				return fmt.Errorf("skill %s was not saved: its %s code does not compile: %w", s.Name, s.Language, ce)
			}
			return fmt.Errorf("skill %s was not saved: checking its code failed: %w", s.Name, err)
		}
	}
	return st.Save(ctx, s, o.Overwrite)
}
