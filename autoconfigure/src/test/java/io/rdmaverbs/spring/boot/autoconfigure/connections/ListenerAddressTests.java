package io.rdmaverbs.spring.boot.autoconfigure.connections;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;

import io.rdmaverbs.spring.boot.autoconfigure.Contexts;
import io.rdmaverbs.spring.boot.connections.RdmaListener;
import io.rdmaverbs.spring.boot.connections.RdmaMessageHandler;
import io.rdmaverbs.verbs.provider.VerbsProvider;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A listener declared by {@code device} listens on the address the provider gives for that device
 * ({@code ConnectionVerbs.addresses}), whatever the provider's class: the starter does not tell the
 * simulated provider from the native one.
 */
class ListenerAddressTests {

    @Test
    void aListenerDeclaredByDeviceListensOnTheAddressItsProviderGivesWhateverTheProvidersClass() {
        SimulatedProvider simulated = SimulatedProvider.of(DeviceProfile.rxe("rxe0"));
        VerbsProvider forwarding = (VerbsProvider) Proxy.newProxyInstance(VerbsProvider.class.getClassLoader(),
                new Class<?>[] { VerbsProvider.class }, (proxy, method, arguments) -> {
                    try {
                        return method.invoke(simulated, arguments);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        Contexts.simulated().withConfiguration(AutoConfigurations.of(RdmaConnectionsAutoConfiguration.class))
                .withBean(VerbsProvider.class, () -> forwarding).withBean("echo", RdmaMessageHandler.class, Hosts::echo)
                .withPropertyValues("rdma.verbs.connections.listeners.echo.device=rxe0").run(context -> {
                    assertThat(context).hasNotFailed();
                    RdmaListener listener = context.getBean(RdmaListener.class);
                    assertThat(listener.isListening()).isTrue();
                    assertThat(listener.address()).isEqualTo(new InetSocketAddress(simulated.addresses("rxe0")
                            .getFirst(), 7471));
                });
    }
}
