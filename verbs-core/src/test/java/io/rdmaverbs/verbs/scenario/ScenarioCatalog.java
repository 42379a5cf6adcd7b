package io.rdmaverbs.verbs.scenario;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

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
        all.addAll(BatchScenarios.all());
        all.addAll(DataPathScenarios.all());
        all.addAll(ExtendedCqScenarios.all());
        all.addAll(QpExScenarios.all());
        all.addAll(CmScenarios.all());
        all.addAll(ConnectionScenarios.all());
        return List.copyOf(all);
    }

    /** The scenarios {@link FaultSweepTest} sweeps: all but those that make connections ({@link CmScenarios#withoutConnection()}). */
    public static List<Scenario> faultSweepable() {
        Set<String> connecting = new HashSet<>();
        CmScenarios.all().forEach(s -> connecting.add(s.name()));
        ConnectionScenarios.all().forEach(s -> connecting.add(s.name()));
        CmScenarios.withoutConnection().forEach(s -> connecting.remove(s.name()));
        return all().stream().filter(s -> !connecting.contains(s.name())).toList();
    }
}
