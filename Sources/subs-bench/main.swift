print("subs-bench: not implemented yet")
