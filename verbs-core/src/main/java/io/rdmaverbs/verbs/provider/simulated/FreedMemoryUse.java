package io.rdmaverbs.verbs.provider.simulated;

/**
 * A verb that used an object freed under it: what crashes a real process (SIGSEGV in libibverbs), which
 * the simulation records instead ({@link SimulatedProvider#freedMemoryUses()}) and fails the verb with.
 * Only races make one: librdmacm loads {@code id->qp} without a lock, so a QP that {@code rdma_destroy_qp}
 * frees between the load and its use is used freed.
 *
 * @param verb the verb that used the object, e.g. {@code rdma_disconnect}
 * @param use what it did with it, e.g. {@code ibv_modify_qp(IBV_QPS_ERR)}
 * @param object the freed object's description
 * @param thread the thread the verb ran on
 */
public record FreedMemoryUse(String verb, String use, String object, String thread) {

    @Override
    public String toString() {
        return verb + " on thread " + thread + ": " + use + " on " + object + ", freed under the call (a real process "
                + "would crash here)";
    }
}
