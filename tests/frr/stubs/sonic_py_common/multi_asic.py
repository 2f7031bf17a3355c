"""Single ASIC."""


def is_multi_asic():
    return False


def get_num_asics():
    return 1


def get_asic_id_from_name(name):
    raise RuntimeError("no ASIC namespaces in the test")


def get_asic_device_id(asic_id):
    return None


def get_asic_sub_role(*args, **kwargs):
    return None
