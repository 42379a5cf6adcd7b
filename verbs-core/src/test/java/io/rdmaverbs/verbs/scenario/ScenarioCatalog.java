package io.rdmaverbs.verbs.scenario;

import java.util.ArrayList;
import java.util.List;

/** Every provider-neutral scenario, in a stable order. */
public final class ScenarioCatalog {

    private ScenarioCatalog() {
    }

    public static List<Scenario> all() {
        List<Scenario> all = new ArrayList<>();
        all.addAll(ReleaseRuleScenarios.all());
        all.addAll(LifetimeScenarios.all());
        all.addAll(TrafficScenarios.all());
        all.addAll(XrcScenarios.all());
        all.addAll(ArgumentScenarios.all());
        all.addAll(CmScenarios.all());
        all.addAll(ConnectionScenarios.all());
        return List.copyOf(all);
    }
}
