// Where fabrik's CNI plugins find their node settings. A module without zod, and an entry of its own
// (`@fabrik/api/cni-settings-file`): the fabrik-ovs process reads the settings file's
// agentHostSocket before it decides whether to load the schemas at all.

/** Where the plugins read their node settings (beside the CNI configs, in a directory libcni ignores). */
export const CNI_NODE_SETTINGS_PATH = '/etc/cni/net.d/fabrik.d/config.yaml';
/** Environment variable of the plugin process that points at another settings file. */
export const CNI_NODE_SETTINGS_ENV = 'FABRIK_CNI_CONFIG';
