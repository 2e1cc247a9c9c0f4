import math
return math.hypot(args["a"], args["b"])
