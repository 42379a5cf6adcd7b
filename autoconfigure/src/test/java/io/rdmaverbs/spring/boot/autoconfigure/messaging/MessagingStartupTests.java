package io.rdmaverbs.spring.boot.autoconfigure.messaging;

import io.rdmaverbs.spring.boot.autoconfigure.Contexts;
import io.rdmaverbs.spring.boot.connections.InvalidConnectionSettingException;
import io.rdmaverbs.spring.boot.connections.RdmaMessageHandler;
import io.rdmaverbs.spring.boot.messaging.ConditionalOnRdmaListener;
import io.rdmaverbs.spring.boot.messaging.RdmaEndpoint;
import io.rdmaverbs.spring.boot.messaging.RdmaEndpointRegistry;
import io.rdmaverbs.spring.boot.messaging.RdmaHeaders;
import io.rdmaverbs.spring.boot.messaging.RdmaMessageMapping;
import io.rdmaverbs.spring.boot.messaging.RdmaTemplate;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/** How endpoints are registered at startup, and the mistakes that stop it, each naming what to change. */
class MessagingStartupTests {

    @Test
    void endpointsAreRegisteredByListenerAndRouteAndServeTheListenerWithoutAHandlerBean() {
        Loopback.of("orders").withBean(OrderEndpoint.class).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(RdmaTemplate.class);
            RdmaEndpointRegistry registry = context.getBean(RdmaEndpointRegistry.class);
            assertThat(registry.listeners()).containsExactly("orders");
            assertThat(registry.routes("orders")).contains("place", "upper", "note").hasSize(10);
        });
    }

    @Test
    void anEndpointOfAListenerThatIsNotDeclaredFailsTheStartupNamingTheProperty() {
        InvalidConnectionSettingException analysis = analyze(Loopback.of("orders").withBean(Stray.class));
        assertThat(analysis.getMessage()).contains("rdma.verbs.connections.listeners.invoices",
                "Stray#take", "@RdmaEndpoint(\"invoices\")");
        assertThat(analysis.action()).contains("one of [orders]");
    }

    @Test
    void aListenerNamingAHandlerBeanAndServedByEndpointsTooIsRefused() {
        InvalidConnectionSettingException analysis = analyze(Loopback.of("orders").withBean(OrderEndpoint.class)
                .withBean("raw", RdmaMessageHandler.class, () -> m -> { })
                .withPropertyValues("rdma.verbs.connections.listeners.orders.handler=raw"));
        assertThat(analysis.getMessage()).contains("rdma.verbs.connections.listeners.orders.handler",
                "names the bean 'raw'", "endpoints");
    }

    @Test
    void aListenerWithNeitherEndpointsNorHandlerSaysBothWaysToServeIt() {
        InvalidConnectionSettingException analysis = analyze(Loopback.of("orders"));
        assertThat(analysis.getMessage()).contains("no RdmaMessageHandler bean");
        assertThat(analysis.action()).contains("@RdmaEndpoint(\"orders\")");
    }

    @Test
    void aRouteMappedTwiceFailsTheStartupNamingBothMethods() {
        Loopback.of("orders").withBean(OrderEndpoint.class).withBean(Duplicate.class).run(context -> assertThat(context)
                .getFailure().rootCause().hasMessageContaining("route 'place' is mapped twice")
                .hasMessageContaining("OrderEndpoint#place").hasMessageContaining("Duplicate#place"));
    }

    @Test
    void aMethodWithTwoPayloadsOrHeadersThatAreNoMapFailsTheStartupNamingIt() {
        Loopback.of("orders").withBean(TwoPayloads.class).run(context -> assertThat(context).getFailure().rootCause()
                .hasMessageContaining("TwoPayloads#take takes two payloads, 'a' and 'b'"));
        Loopback.of("orders").withBean(HeadersNoMap.class).run(context -> assertThat(context).getFailure()
                .rootCause().hasMessageContaining("@RdmaHeaders 'headers' is a String"));
    }

    @Test
    void anEndpointConditionalOnItsListenerIsLeftOutWhereTheListenerIsNotDeclared() {
        Loopback.of("orders").withBean(OrderEndpoint.class).withUserConfiguration(Echo.class)
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(Echo.class));
        Loopback.of("echo").withUserConfiguration(Echo.class)
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(Echo.class));
    }

    @Test
    void messagingCanBeSwitchedOff() {
        Loopback.of("orders").withBean("raw", RdmaMessageHandler.class, () -> m -> { })
                .withPropertyValues("rdma.verbs.messaging.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RdmaTemplate.class)
                        .doesNotHaveBean(RdmaEndpointRegistry.class));
    }

    /** The startup failure's InvalidConnectionSettingException: what its failure analysis prints. */
    private static InvalidConnectionSettingException analyze(ApplicationContextRunner runner) {
        InvalidConnectionSettingException[] failure = new InvalidConnectionSettingException[1];
        runner.run(context -> {
            assertThat(context).hasFailed();
            failure[0] = Contexts.causeOf(context.getStartupFailure(), InvalidConnectionSettingException.class);
        });
        return failure[0];
    }

    @RdmaEndpoint("echo")
    @ConditionalOnRdmaListener("echo")
    static class Echo {
        @RdmaMessageMapping("echo")
        String echo(String s) {
            return s;
        }
    }

    @RdmaEndpoint("invoices")
    static class Stray {
        @RdmaMessageMapping("x")
        void take(String s) {
        }
    }

    @RdmaEndpoint("orders")
    static class Duplicate {
        @RdmaMessageMapping("place")
        String place(String s) {
            return s;
        }
    }

    @RdmaEndpoint("orders")
    static class TwoPayloads {
        @RdmaMessageMapping("two")
        void take(String a, String b) {
        }
    }

    @RdmaEndpoint("orders")
    static class HeadersNoMap {
        @RdmaMessageMapping("h")
        void take(String a, @RdmaHeaders String headers) {
        }
    }
}
