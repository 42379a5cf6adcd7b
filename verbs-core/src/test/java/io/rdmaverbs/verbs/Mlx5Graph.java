package io.rdmaverbs.verbs;

import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

/** A graph on one simulated mlx5 device (which has XRC), with a PD and a CQ to build specs from. */
final class Mlx5Graph implements AutoCloseable {

    final Verbs verbs = Verbs.using(SimulatedProvider.of(DeviceProfile.mlx5("mlx5_0")));
    final DeviceContext ctx = verbs.openDevice("mlx5_0");
    final ProtectionDomain pd = ctx.allocateProtectionDomain("pd");
    final CompletionQueue cq = ctx.createCompletionQueue(CompletionQueueSpec.of(16), "cq");

    @Override
    public void close() {
        verbs.close();
    }
}
