package arrows

// T is used by d.
type T struct{}

// M is a method d calls.
func (T) M() {}

func B() int { return C() }
