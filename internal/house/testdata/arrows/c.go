package arrows

func C() int { return len(string(rune(A()))) }
