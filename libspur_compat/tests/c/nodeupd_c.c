/* slurm_update_node's weight and features (NO_VAL and NULL leave fields unchanged) read back through slurm_load_node, and
 * slurm_create_node without MaxNodeCount. Usage: nodeupd_c NODE; prints each call's return code and errno text and
 * the node's weight and state after it. Conformance case 497 runs it on both targets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <slurm/slurm.h>

static void report(const char *what, int rc)
{
	if (rc == SLURM_SUCCESS)
		printf("%s: rc=0\n", what);
	else
		printf("%s: rc=%d errno=%d %s\n", what, rc, slurm_get_errno(),
		       slurm_strerror(slurm_get_errno()));
}

static void show(const char *node)
{
	node_info_msg_t *msg = NULL;
	if (slurm_load_node_single(&msg, (char *)node, SHOW_ALL) != SLURM_SUCCESS || !msg ||
	    msg->record_count != 1) {
		printf("load %s failed: %s\n", node, slurm_strerror(slurm_get_errno()));
		return;
	}
	uint32_t state = msg->node_array[0].node_state;
	const char *features = msg->node_array[0].features;
	printf("weight=%u base=%u drain=%d features=%s\n", msg->node_array[0].weight, state & NODE_STATE_BASE,
	       (state & NODE_STATE_DRAIN) != 0, features ? features : "NULL");
	slurm_free_node_info_msg(msg);
}

static int set_weight(const char *node, uint32_t weight)
{
	update_node_msg_t m;
	slurm_init_update_node_msg(&m);
	m.node_names = (char *)node;
	m.weight = weight;
	return slurm_update_node(&m);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: nodeupd_c NODE\n");
		return 2;
	}
	const char *node = argv[1];
	update_node_msg_t m;

	show(node);
	report("weight 10000", set_weight(node, 10000));
	show(node);
	report("weight 20000", set_weight(node, 20000));
	show(node);
	report("weight 5000", set_weight(node, 5000));
	show(node);

	/* Nothing set: every field is NO_VAL or NULL. */
	slurm_init_update_node_msg(&m);
	m.node_names = (char *)node;
	report("nothing", slurm_update_node(&m));
	show(node);

	report("unknown node", set_weight("nosuch497", 3));

	/* A weight with a drain and its reason, then a resume that leaves the weight alone. */
	slurm_init_update_node_msg(&m);
	m.node_names = (char *)node;
	m.weight = 7;
	m.node_state = NODE_STATE_DRAIN;
	m.reason = "nodeupd";
	report("drain and weight 7", slurm_update_node(&m));
	show(node);
	slurm_init_update_node_msg(&m);
	m.node_names = (char *)node;
	m.node_state = NODE_RESUME;
	report("resume", slurm_update_node(&m));
	show(node);

	report("weight 1", set_weight(node, 1));
	show(node);

	/* Features: active ones follow without ActiveFeatures; dropping one needs features_act too. */
	slurm_init_update_node_msg(&m);
	m.node_names = (char *)node;
	m.features = "c497,d497";
	report("features c497,d497", slurm_update_node(&m));
	show(node);
	m.features = "c497";
	report("features c497 alone", slurm_update_node(&m));
	show(node);
	m.features_act = "c497";
	report("features and active c497", slurm_update_node(&m));
	show(node);
	m.features = "";
	m.features_act = "";
	report("features cleared", slurm_update_node(&m));
	show(node);

	/* Dynamic nodes: no MaxNodeCount on the reference cluster, so success and no node. */
	slurm_init_update_node_msg(&m);
	m.extra = "NodeName=n497c State=FUTURE";
	report("create FUTURE", slurm_create_node(&m));
	node_info_msg_t *msg = NULL;
	int rc = slurm_load_node_single(&msg, "n497c", SHOW_ALL);
	printf("load n497c: rc=%d records=%u\n", rc, msg ? msg->record_count : 0);
	if (msg)
		slurm_free_node_info_msg(msg);
	slurm_init_update_node_msg(&m);
	m.extra = "NodeName=n497c State=IDLE";
	report("create IDLE", slurm_create_node(&m));
	return 0;
}
