package io.rdmaverbs.verbs.scenario;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The differential comparison finds and names a disagreement (so the guest's check can fail). */
class DifferentialTest {

    @Test
    void aDeviceWithXrcAndOneWithoutDisagreeOnTheFirstXrcStepAndTheMessageNamesBothAnswers() {
        Scenario sharing = ScenarioCatalog.all().stream()
                .filter(s -> s.name().startsWith("XRC domains are shared by inode")).findFirst().orElseThrow();
        Differential.Result rxe = Differential.run(VerbsTarget.simulatedRxe(), sharing);
        Differential.Result mlx5 = Differential.run(VerbsTarget.simulatedMlx5(), sharing);
        assertThat(rxe.failure()).isNull();
        assertThat(mlx5.failure()).isNull();

        assertThat(Differential.firstDisagreement(rxe, mlx5))
                .isEqualTo("step 1: the kernel run did 'ibv_open_xrcd O_CREAT|O_EXCL on a device without XRC' and got "
                        + "EOPNOTSUPP, the simulator run did 'ibv_open_xrcd O_CREAT|O_EXCL' and got ok");
        // A shorter record is a disagreement too: the step the other run did not reach is named.
        Differential.Result truncated = new Differential.Result(mlx5.steps().subList(0, 2), null);
        assertThat(Differential.firstDisagreement(mlx5, truncated)).startsWith("step 3 '")
                .endsWith("the simulator answered (no such step: completed)");
    }

    @Test
    void identicalRecordsAgree() {
        Scenario scenario = ScenarioCatalog.all().getFirst();
        assertThat(Differential.firstDisagreement(Differential.run(VerbsTarget.simulatedRxe(), scenario),
                Differential.run(VerbsTarget.simulatedRxe(), scenario))).isNull();
    }

    @Test
    void aRunThatFailsAfterTheSameStepsIsADisagreement() {
        List<Steps.Outcome> same = List.of(new Steps.Outcome("ibv_alloc_pd", "ok"));
        String d = Differential.firstDisagreement(new Differential.Result(same, null),
                new Differential.Result(same, new AssertionError("boom")));
        assertThat(d).contains("the kernel run completed", "the simulator run failed: java.lang.AssertionError: boom");
    }
}
