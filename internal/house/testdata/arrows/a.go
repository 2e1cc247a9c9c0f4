package arrows

func A() int { return B() }
