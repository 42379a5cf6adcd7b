package io.rdmaverbs.sample;

import io.rdmaverbs.sample.exchange.ChurnResult;
import io.rdmaverbs.sample.exchange.CompletionFailedException;
import io.rdmaverbs.sample.exchange.LoopbackExchange;
import io.rdmaverbs.sample.exchange.ResourceChurn;
import io.rdmaverbs.verbs.attr.PortState;
import io.rdmaverbs.verbs.provider.VerbsProvider;
import io.rdmaverbs.verbs.provider.simulated.ResourceCounts;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The sample's services under the faults the soak injects ({@code SampleSoakIT}), one at a time: a port
 * that goes down and up again, and resources created and closed at run time. (A device fatal cannot be
 * undone, so only the soak's own process sees one.)
 */
@SpringBootTest
class FaultRecoveryTests {

    private static final String DEVICE = "mlx5_0";

    @Autowired
    LoopbackExchange loopback;

    @Autowired
    ResourceChurn churn;

    @Autowired
    VerbsProvider provider;

    @AfterEach
    void portBackUp() {
        simulated().setPortState(DEVICE, 1, PortState.ACTIVE);
    }

    @Test
    void anExchangeThroughAPortThatIsDownFailsNamingTheStatusAndTheNextOneAfterThePortIsBackSucceeds() {
        simulated().setPortState(DEVICE, 1, PortState.DOWN);
        assertThatExceptionOfType(CompletionFailedException.class).isThrownBy(() -> loopback.exchange("lost"))
                .withMessageContaining("send RETRY_EXC_ERR").withMessageContaining("reset and reconnected");

        simulated().setPortState(DEVICE, 1, PortState.ACTIVE);

        assertThat(loopback.exchange("after the flap").received()).isEqualTo("after the flap");
        assertThat(loopback.exchange("and again").received()).isEqualTo("and again");
    }

    @Test
    void resourceChurnClosesEverythingItCreatedAndLeavesTheDeviceAsItWas() {
        ResourceCounts before = simulated().resourceCounts(DEVICE);

        ChurnResult r = churn.churn("created at run time");

        assertThat(r.created()).hasSize(4).allMatch(name -> name.startsWith("churn-"));
        assertThat(r.closed()).containsExactlyInAnyOrderElementsOf(r.created());
        assertThat(r.sendStatus()).isEqualTo("SUCCESS");
        assertThat(r.receiveStatus()).isEqualTo("SUCCESS");
        assertThat(simulated().resourceCounts(DEVICE)).isEqualTo(before);
    }

    @Test
    void resourceChurnThroughAPortThatIsDownFailsAndStillClosesWhatItCreated() {
        ResourceCounts before = simulated().resourceCounts(DEVICE);
        simulated().setPortState(DEVICE, 1, PortState.DOWN);

        assertThatExceptionOfType(CompletionFailedException.class).isThrownBy(() -> churn.churn("lost"))
                .withMessageContaining("send RETRY_EXC_ERR");

        assertThat(simulated().resourceCounts(DEVICE)).isEqualTo(before);
    }

    private SimulatedProvider simulated() {
        return (SimulatedProvider) provider;
    }
}
