package io.rdmaverbs.verbs;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.codeUnits;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.stream.Collectors;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import io.rdmaverbs.verbs.provider.ProviderUnavailableException;
import io.rdmaverbs.verbs.provider.VerbsProvider;

/**
 * The layers of verbs-core, from the bottom: {@code attr} and {@code error} (values and failures every
 * layer exchanges), the provider SPI ({@code provider}) with its two implementations ({@code ffm},
 * {@code simulated}), and the resource graph ({@code io.rdmaverbs.verbs} itself) on top. The graph reaches
 * a provider only through the SPI: whoever builds a {@link Verbs} picks the implementation and hands it
 * in ({@link Verbs#using}), so the graph has no factory for either and may name neither. The connection
 * API ({@code connection}) sits on the graph.
 *
 * <p>Each rule also fails when its subject matches no class (ArchUnit's default), so a renamed package
 * cannot leave a rule checking nothing.
 */
@AnalyzeClasses(packages = "io.rdmaverbs.verbs", importOptions = ImportOption.DoNotIncludeTests.class)
class LayeringTest {

    private static final String GRAPH = "io.rdmaverbs.verbs";
    private static final String ATTR = "io.rdmaverbs.verbs.attr";
    private static final String ERROR = "io.rdmaverbs.verbs.error";
    private static final String SPI = "io.rdmaverbs.verbs.provider..";
    private static final String FFM = "io.rdmaverbs.verbs.provider.ffm..";
    private static final String SIMULATED = "io.rdmaverbs.verbs.provider.simulated..";
    private static final String CONNECTION = "io.rdmaverbs.verbs.connection..";
    private static final String SPI_PACKAGE = "io.rdmaverbs.verbs.provider";

    @ArchTest
    static final ArchRule providersNeverDependOnTheGraph = noClasses().that().resideInAPackage(SPI)
            .should().dependOnClassesThat().resideInAPackage(GRAPH)
            .because("a provider is a leaf: it reports failures with io.rdmaverbs.verbs.error and takes values "
                    + "from io.rdmaverbs.verbs.attr, and the graph sits on top of it");

    @ArchTest
    static final ArchRule valuesAndErrorsDependOnNeitherGraphNorProviders = noClasses()
            .that().resideInAnyPackage(ATTR, ERROR)
            .should().dependOnClassesThat().resideInAnyPackage(GRAPH, SPI)
            .because("attributes and errors are exchanged by every layer, so they sit below all of them");

    @ArchTest
    static final ArchRule errorsDependOnNoOtherPackageOfTheProject = noClasses().that().resideInAPackage(ERROR)
            .should().dependOnClassesThat().resideOutsideOfPackages(ERROR, "java..", "org.jspecify..")
            .because("a failure names the verb, the resource and the errno: nothing else of the project");

    @ArchTest
    static final ArchRule theNativeProviderDoesNotUseTheSimulatedOne = noClasses().that().resideInAPackage(FFM)
            .should().dependOnClassesThat().resideInAPackage(SIMULATED)
            .because("the two providers are alternatives behind the same SPI");

    @ArchTest
    static final ArchRule theSimulatedProviderDoesNotUseTheNativeOne = noClasses().that().resideInAPackage(SIMULATED)
            .should().dependOnClassesThat().resideInAPackage(FFM)
            .because("the simulator must run where libibverbs cannot be loaded");

    @ArchTest
    static final ArchRule theGraphReachesProvidersOnlyThroughTheSpi = noClasses().that().resideInAPackage(GRAPH)
            .should().dependOnClassesThat().resideInAnyPackage(FFM, SIMULATED)
            .because("the provider is chosen by whoever calls Verbs.using (the Spring starter, a test), not by "
                    + "the graph");

    @ArchTest
    static final ArchRule theGraphNeverDependsOnTheConnectionApi = noClasses().that().resideInAPackage(GRAPH)
            .should().dependOnClassesThat().resideInAPackage(CONNECTION)
            .because("connections are built on the graph's public CM resources, never the other way round");

    @ArchTest
    static final ArchRule connectionsUseNoProviderImplementation = noClasses().that().resideInAPackage(CONNECTION)
            .should().dependOnClassesThat().resideInAnyPackage(FFM, SIMULATED)
            .because("a connection runs on whichever provider the graph was given, through the graph alone");

    @ArchTest
    static final ArchRule thePublicApiExposesNoProviderSpiTypeButTheProvider = codeUnits().that().arePublic()
            .and().areDeclaredInClassesThat().arePublic()
            .and().areDeclaredInClassesThat().resideInAnyPackage(GRAPH, CONNECTION)
            .should(exposeNoSpiTypeBut(VerbsProvider.class, ProviderUnavailableException.class))
            .because("what the public API takes and returns is the graph's, attr's or error's (CmEventType, "
                    + "CmPortSpace and CmConnectionParams moved to attr for this): the SPI package holds the "
                    + "providers' interfaces and handles, which an application only meets as the VerbsProvider it "
                    + "hands to Verbs.using");

    @ArchTest
    static final ArchRule nothingInVerbsCoreDependsOnSpring = noClasses()
            .should().dependOnClassesThat().resideInAPackage("org.springframework..")
            .because("verbs-core is a plain library; the Spring wiring lives in the autoconfigure module");

    /**
     * Every type a public method or constructor takes or returns, type arguments included
     * ({@code List<CmEventType>}), is outside the SPI package {@code io.rdmaverbs.verbs.provider} itself (its
     * sub-packages, the implementations, are the other rules'), but for {@code allowed}.
     */
    private static ArchCondition<JavaCodeUnit> exposeNoSpiTypeBut(Class<?>... allowed) {
        Set<String> exempt = Arrays.stream(allowed).map(Class::getName).collect(Collectors.toSet());
        return new ArchCondition<>("expose no type of " + SPI_PACKAGE + " but " + exempt) {
            @Override
            public void check(JavaCodeUnit unit, ConditionEvents events) {
                Set<JavaClass> exposed = new LinkedHashSet<>(unit.getReturnType().getAllInvolvedRawTypes());
                unit.getParameterTypes().forEach(t -> exposed.addAll(t.getAllInvolvedRawTypes()));
                for (JavaClass type : exposed) {
                    if (type.getPackageName().equals(SPI_PACKAGE) && !exempt.contains(type.getName())) {
                        events.add(SimpleConditionEvent.violated(unit, unit.getFullName() + " exposes "
                                + type.getName()));
                    }
                }
            }
        };
    }
}
