package io.rdmaverbs.spring.boot.test.autoconfigure;

import java.nio.charset.StandardCharsets;

import io.rdmaverbs.spring.boot.connections.RdmaListener;
import io.rdmaverbs.spring.boot.connections.RdmaMessageHandler;
import io.rdmaverbs.spring.boot.connections.RdmaPeer;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.assertj.MockMvcTester;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link AutoConfigureSimulatedVerbs} brings the connections too: a {@code @WebMvcTest} of a controller
 * that takes an {@link RdmaPeer} gets the declared listener and peer, which connect to each other in the
 * test's JVM. The peer's address is the listener device's link-local address, {@code rxe0}'s on the
 * simulated provider (docs/simulated-provider.md says how it is derived).
 */
@WebMvcTest(properties = { "rdma.verbs.connections.listeners.echo.device=rxe0",
        "rdma.verbs.connections.peers.echo.address=fe80::a81f:aeff:fee9:9992" })
@AutoConfigureSimulatedVerbs
@Import({ EchoController.class, AutoConfigureSimulatedVerbsConnectionsTests.Echo.class })
class AutoConfigureSimulatedVerbsConnectionsTests {

    @Autowired
    private ApplicationContext context;

    @Autowired
    private MockMvcTester mvc;

    @Test
    void theSliceHasTheDeclaredListenerAndPeer() {
        assertThat(context.getBeansOfType(RdmaListener.class)).containsOnlyKeys("echoRdmaListener");
        assertThat(context.getBeansOfType(RdmaPeer.class)).containsOnlyKeys("echoRdmaPeer");
    }

    @Test
    void theControllerUnderTestRelaysOverThePeerToTheListenerAndBack() {
        assertThat(mvc.post().uri("/echo").contentType(MediaType.APPLICATION_OCTET_STREAM)
                .content("over RDMA and back".getBytes(StandardCharsets.UTF_8)))
                .hasStatusOk().hasBodyTextEqualTo("over RDMA and back");
    }

    /** The listener's handler: every request answered with its own payload. */
    @TestConfiguration(proxyBeanMethods = false)
    static class Echo {

        @Bean
        RdmaMessageHandler echo() {
            return message -> message.reply(message.toByteArray());
        }
    }
}
