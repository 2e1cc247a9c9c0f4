package arrows

func D(t T2) { t.M() }

// T2 embeds nothing; D reaches M through a value declared here.
type T2 = T
