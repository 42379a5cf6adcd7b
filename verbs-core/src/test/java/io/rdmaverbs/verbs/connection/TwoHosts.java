package io.rdmaverbs.verbs.connection;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;

import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedNetwork;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

/**
 * Two simulated hosts on one network, each with its graph and its connection manager: the server on
 * {@code rxe0}, the client on {@code rxe1}. A test makes one per test method and closes it after.
 */
final class TwoHosts implements AutoCloseable {

    final SimulatedNetwork network = SimulatedNetwork.create();
    final SimulatedProvider serverHost = SimulatedProvider.on(network, DeviceProfile.rxe("rxe0"));
    final SimulatedProvider clientHost = SimulatedProvider.on(network, DeviceProfile.rxe("rxe1"));
    final Verbs serverVerbs = Verbs.using(serverHost);
    final Verbs clientVerbs = Verbs.using(clientHost);
    final Connections server = Connections.on(serverVerbs, "server");
    final Connections client = Connections.on(clientVerbs, "client");
    final InetAddress serverIp = serverHost.addresses("rxe0").getFirst();

    /** The server's address with port 0: a listener bound to it gets a port of its own. */
    InetSocketAddress anyServerPort() {
        return new InetSocketAddress(serverIp, 0);
    }

    /**
     * Closes both managers, then both graphs; fails the test if either host saw a use of freed memory (a
     * call that would have crashed a real process), which nothing else would show.
     */
    @Override
    public void close() {
        client.close();
        server.close();
        assertThat(clientHost.freedMemoryUses()).as("uses of freed memory on the client").isEmpty();
        assertThat(serverHost.freedMemoryUses()).as("uses of freed memory on the server").isEmpty();
        clientVerbs.close();
        serverVerbs.close();
    }
}
