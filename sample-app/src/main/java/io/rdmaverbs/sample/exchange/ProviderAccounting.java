package io.rdmaverbs.sample.exchange;

import io.rdmaverbs.verbs.connection.Connections;
import io.rdmaverbs.verbs.provider.VerbsProvider;
import io.rdmaverbs.verbs.provider.simulated.ResourceCounts;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;

/**
 * At shutdown, after the teardown, logs what the simulated devices still hold (the simulated
 * {@code rdma resource show}): the proof that nothing was left. On real hardware, run
 * {@code rdma resource show} yourself.
 */
@Component
public class ProviderAccounting implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(ProviderAccounting.class);

    private final VerbsProvider provider;
    private final boolean connectionManagerUsed;

    public ProviderAccounting(VerbsProvider provider, ObjectProvider<Connections> connections) {
        this.provider = provider;
        this.connectionManagerUsed = connections.getIfAvailable() != null;
    }

    @Override
    public void destroy() {
        if (!(provider instanceof SimulatedProvider simulated)) {
            return;
        }
        provider.deviceVerbs().devices().forEach(device -> {
            ResourceCounts c = simulated.resourceCounts(device.name());
            if (c.objects() == 0 && c.contexts() == 0) {
                log.info("simulated device {} holds no objects after shutdown", device.name());
            } else if (c.objects() == 0 && c.contexts() == 1 && connectionManagerUsed) {
                // librdmacm opens a context per device for itself and keeps it for the process's life.
                log.info("simulated device {} holds no objects after shutdown, only the connection manager's own "
                        + "context (librdmacm keeps it until the process exits)", device.name());
            } else {
                log.warn("simulated device {} still holds objects after shutdown: {}", device.name(), c);
            }
        });
    }
}
