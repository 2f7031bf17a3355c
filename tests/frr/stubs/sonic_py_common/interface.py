def backplane_prefix():
    return "Ethernet-BP"
