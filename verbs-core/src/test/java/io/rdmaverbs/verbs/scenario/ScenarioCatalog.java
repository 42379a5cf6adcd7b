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
        all.addAll(ConfinementScenarios.all());
        all.addAll(CmScenarios.all());
        all.addAll(ConnectionScenarios.all());
        all.addAll(SessionScenarios.all());
        all.addAll(OneSidedScenarios.all());
        all.addAll(CloseRaceScenarios.all());
        return List.copyOf(all);
    }

    /**
     * The scenarios {@link FaultSweepTest} sweeps at every provider call: all but {@link #connecting()} and
     * the close races ({@link CloseRaceScenarios}: many rounds of thousands of calls each, which a sweep per
     * call would multiply; one round of each is what {@link ConnectionScenarios} already sweeps).
     */
    public static List<Scenario> faultSweepable() {
        Set<String> excluded = names(connecting());
        excluded.addAll(names(CloseRaceScenarios.all()));
        return all().stream().filter(s -> !excluded.contains(s.name())).toList();
    }

    /**
     * The scenarios that make a connection ({@link CmScenarios} but {@link CmScenarios#withoutConnection()},
     * {@link ConnectionScenarios}, {@link SessionScenarios} and {@link OneSidedScenarios}): {@link FaultSweepTest}
     * sweeps them verb by
     * verb, as their runs wait.
     */
    public static List<Scenario> connecting() {
        Set<String> connecting = new HashSet<>();
        connecting.addAll(names(CmScenarios.all()));
        connecting.addAll(names(ConnectionScenarios.all()));
        connecting.addAll(names(SessionScenarios.all()));
        connecting.addAll(names(OneSidedScenarios.all()));
        connecting.removeAll(names(CmScenarios.withoutConnection()));
        return all().stream().filter(s -> connecting.contains(s.name())).toList();
    }

    private static Set<String> names(List<Scenario> scenarios) {
        Set<String> names = new HashSet<>();
        scenarios.forEach(s -> names.add(s.name()));
        return names;
    }
}
