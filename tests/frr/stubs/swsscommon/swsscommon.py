"""swsscommon as far as sonic-cfggen -j and bgpcfgd's managers use it on a single-ASIC switch."""

SET_COMMAND = "SET"
DEL_COMMAND = "DEL"

# Table names (sonic-swss-common common/schema.h).
CFG_DEVICE_METADATA_TABLE_NAME = "DEVICE_METADATA"
CFG_DEVICE_NEIGHBOR_METADATA_TABLE_NAME = "DEVICE_NEIGHBOR_METADATA"
CFG_INTF_TABLE_NAME = "INTERFACE"
CFG_LOOPBACK_INTERFACE_TABLE_NAME = "LOOPBACK_INTERFACE"
CFG_VLAN_INTF_TABLE_NAME = "VLAN_INTERFACE"
CFG_LAG_INTF_TABLE_NAME = "PORTCHANNEL_INTERFACE"
CFG_VOQ_INBAND_INTERFACE_TABLE_NAME = "VOQ_INBAND_INTERFACE"
CFG_VLAN_SUB_INTF_TABLE_NAME = "VLAN_SUB_INTERFACE"
CFG_MGMT_INTERFACE_TABLE_NAME = "MGMT_INTERFACE"
CFG_BGP_NEIGHBOR_TABLE_NAME = "BGP_NEIGHBOR"
CFG_BGP_INTERNAL_NEIGHBOR_TABLE_NAME = "BGP_INTERNAL_NEIGHBOR"
CFG_BGP_DEVICE_GLOBAL_TABLE_NAME = "BGP_DEVICE_GLOBAL"
STATE_INTERFACE_TABLE_NAME = "INTERFACE_TABLE"
STATE_ADVERTISE_NETWORK_TABLE_NAME = "ADVERTISE_NETWORK_TABLE"
STATE_BGP_PEER_CONFIGURED_TABLE_NAME = "BGP_PEER_CONFIGURED_TABLE"
STATE_BFD_SOFTWARE_SESSION_TABLE_NAME = "BFD_SOFTWARE_SESSION_TABLE"
APP_BGP_PROFILE_TABLE_NAME = "BGP_PROFILE_TABLE"


class NoDatabase(Exception):
    """A code path that would read or write Redis on the switch."""


# The switch's CONFIG_DB as bgpcfgd reads it, set by tests/frr/sonic_startup.py (config_db.json
# tables); None while sonic-cfggen runs, which must read its -j file instead.
CONFIG_DB = None


class ConfigDBConnector:
    """Reads CONFIG_DB (get_table, get_entry); the key helpers of sonic-swss-common common/configdb.h."""

    KEY_SEPARATOR = "|"

    def __init__(self, *args, **kwargs):
        if CONFIG_DB is None:
            raise NoDatabase("ConfigDBConnector: no CONFIG_DB in the test (use -j)")

    def connect(self, *args, **kwargs):
        pass

    def get_table(self, table):
        rows = CONFIG_DB.get(table, {})
        return {self.deserialize_key(k): dict(v) for k, v in rows.items()}

    def get_entry(self, table, key):
        return dict(CONFIG_DB.get(table, {}).get(self.serialize_key(key), {}))

    @staticmethod
    def serialize_key(key, separator="|"):
        if type(key) is tuple:
            return separator.join(key)
        return str(key)

    @staticmethod
    def deserialize_key(key, separator="|"):
        tokens = key.split(separator)
        if len(tokens) > 1:
            return tuple(tokens)
        return key


class ConfigDBPipeConnector(ConfigDBConnector):
    pass


class SonicDBConfig:
    @staticmethod
    def isInit():
        return True

    @staticmethod
    def isGlobalInit():
        return True

    @staticmethod
    def initialize(*args):
        pass

    @staticmethod
    def initializeGlobalConfig(*args):
        pass


class DBConnector:
    """Accepted (bgpcfgd opens STATE_DB at start); every read or write goes through Table."""

    def __init__(self, *args, **kwargs):
        self.args = args


class Table:
    """STATE_DB tables bgpcfgd (202505 and later) writes and clears at start: empty, as after a reload."""

    def __init__(self, db, name):
        self.name = name

    def set(self, key, fvs):
        pass

    def get(self, key):
        return (False, [])

    def delete(self, key):
        pass

    def getKeys(self):
        return []


class SonicV2Connector:
    def __init__(self, *args, **kwargs):
        raise NoDatabase("SonicV2Connector: no database in the test")
