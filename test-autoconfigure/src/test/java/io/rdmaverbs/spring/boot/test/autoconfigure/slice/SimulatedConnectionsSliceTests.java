package io.rdmaverbs.spring.boot.test.autoconfigure.slice;

import java.time.Duration;

import io.rdmaverbs.spring.boot.messaging.RdmaEndpoint;
import io.rdmaverbs.spring.boot.messaging.RdmaMessageMapping;
import io.rdmaverbs.spring.boot.messaging.RdmaTemplate;
import io.rdmaverbs.spring.boot.test.autoconfigure.AutoConfigureSimulatedVerbs;
import io.rdmaverbs.spring.boot.test.autoconfigure.RdmaEndpointTestHarness;
import io.rdmaverbs.spring.boot.test.autoconfigure.SimulatedConnections;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.context.annotation.Import;
import org.springframework.test.web.servlet.assertj.MockMvcTester;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link SimulatedConnections} in a test slice, with {@link AutoConfigureSimulatedVerbs}: a controller that
 * asks a remote endpoint through the {@code RdmaTemplate}, JSON both ways, tested with no YAML.
 */
@WebMvcTest(SimulatedConnectionsSliceTests.QuoteController.class)
@AutoConfigureSimulatedVerbs
@SimulatedConnections("quotes")
@Import({ SimulatedConnectionsSliceTests.QuoteController.class, SimulatedConnectionsSliceTests.QuoteEndpoint.class })
class SimulatedConnectionsSliceTests {

    record Ask(String item, int quantity) {
    }

    record Quote(String item, long cents) {
    }

    @RdmaEndpoint("quotes")
    static class QuoteEndpoint {

        @RdmaMessageMapping("quote")
        Quote quote(Ask ask) {
            return new Quote(ask.item(), ask.quantity() * 125L);
        }
    }

    @RestController
    static class QuoteController {

        private final RdmaTemplate template;

        QuoteController(RdmaTemplate template) {
            this.template = template;
        }

        @GetMapping("/quote")
        Quote quote(@RequestParam String item, @RequestParam int quantity) {
            return template.convertSendAndReceive("quotes", "quote", new Ask(item, quantity), Quote.class);
        }
    }

    @Autowired
    MockMvcTester mvc;

    @Autowired
    RdmaEndpointTestHarness harness;

    @Test
    void theControllerGetsItsQuoteFromTheEndpointOverTheSimulatedConnection() throws InterruptedException {
        assertThat(mvc.get().uri("/quote?item=disk&quantity=4")).hasStatusOk().bodyJson()
                .isLenientlyEqualTo("{\"item\":\"disk\",\"cents\":500}");
        assertThat(harness.awaitInvocation("quotes", "quote", Duration.ofSeconds(10)).payload())
                .isEqualTo(new Ask("disk", 4));
    }
}
