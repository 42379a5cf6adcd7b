package io.rdmaverbs.sample;

import io.rdmaverbs.sample.exchange.ExchangeResult;
import io.rdmaverbs.sample.exchange.LoopbackExchange;
import io.rdmaverbs.sample.exchange.XrcExchange;
import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.Verbs;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/** The sample's services against the simulated provider its default profile selects. */
@SpringBootTest
class SampleApplicationTests {

    @Autowired
    LoopbackExchange loopback;

    @Autowired
    XrcExchange xrc;

    @Autowired
    @Qualifier("cq")
    CompletionQueue cq;

    @Autowired
    Verbs verbs;

    @Test
    void rcExchangeDeliversTheMessageThroughTheCompletionChannel() {
        ExchangeResult r = loopback.exchange("ping");
        assertThat(r.received()).isEqualTo("ping");
        assertThat(r.bytes()).isEqualTo(4);
        assertThat(r.sendStatus()).isEqualTo("SUCCESS");
        assertThat(r.receiveStatus()).isEqualTo("SUCCESS");
        assertThat(r.completionEvents()).isPositive();
        assertThat(cq.unacknowledgedEvents()).isZero();
    }

    @Test
    void xrcExchangeDeliversIntoTheSharedReceiveQueue() {
        assertThat(xrc.isAvailable()).isTrue();
        assertThat(xrc.exchange("over xrc").received()).isEqualTo("over xrc");
    }

    @Test
    void anExchangeLeavingAnEventUnacknowledgedShowsAsAStuckReference() {
        loopback.exchangeLeavingOneEventUnacknowledged("stuck");
        assertThat(cq.unacknowledgedEvents()).isEqualTo(1);
        assertThat(verbs.stuckReferences()).anySatisfy(s -> assertThat(s.cause().name())
                .isEqualTo("UNACKNOWLEDGED_CQ_EVENTS"));
        cq.acknowledgeEvents(1);
    }
}
