"""A single-ASIC switch that is not a chassis, a smart switch or the virtual switch."""

VS_PLATFORM = "x86_64-kvm_x86_64-r0"


def get_platform():
    return None


def is_chassis():
    return False


def is_smartswitch():
    return False


def get_path_to_port_config_file(*args, **kwargs):
    raise RuntimeError("no platform folder in the test (sonic-cfggen -k is not used)")


def get_system_mac(*args, **kwargs):
    raise RuntimeError("no platform in the test (sonic-cfggen -H is not used)")
