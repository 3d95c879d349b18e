"""The discourse relations as annotators read them: a Polish name, a one-line definition and
a short example per label. The labels themselves (what is stored and scored) are defined in
scoring.subtasks.discourse.RELATIONS; this is only their presentation, in Polish (the guidelines'
language). The definitions and examples are the project's own.

In the examples "|" separates the two units; the dependent unit is in brackets ⟨…⟩.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class RelationGuide:
    label: str  # as stored: scoring.subtasks.discourse.RELATIONS
    name: str
    definition: str
    example: str


RELATION_GUIDES: tuple[RelationGuide, ...] = (
    RelationGuide(
        "Alternative", "alternatywa",
        "jednostki przedstawiają możliwości, z których zachodzi (albo ma zajść) tylko jedna",
        "Możemy pojechać pociągiem | ⟨albo polecieć samolotem⟩.",
    ),
    RelationGuide(
        "Attribution", "przytoczenie źródła",
        "zależna mówi, kto coś powiedział lub pomyślał (albo skąd pochodzi informacja) zawarta w nadrzędnej",
        "⟨Minister zapowiedział,⟩ | że podatki nie wzrosną.",
    ),
    RelationGuide(
        "Cause", "przyczyna lub skutek",
        "zależna podaje przyczynę albo skutek tego, o czym mówi nadrzędna",
        "Odwołano lot, | ⟨bo nad lotniskiem przeszła burza⟩.",
    ),
    RelationGuide(
        "Co-occurence", "współwystępowanie",
        "zdarzenia obu jednostek zachodzą w tym samym czasie lub w tych samych okolicznościach, bez związku przyczynowego",
        "⟨Kiedy goście jedli obiad,⟩ | orkiestra grała walca.",
    ),
    RelationGuide(
        "Comment", "komentarz",
        "zależna ocenia lub komentuje treść nadrzędnej z punktu widzenia mówiącego",
        "Rząd wycofał projekt ustawy, | ⟨co było rozsądną decyzją⟩.",
    ),
    RelationGuide(
        "Concession", "przyzwolenie",
        "zależna podaje okoliczność, która mogłaby przeszkodzić temu, co mówi nadrzędna, a jednak nie przeszkodziła",
        "⟨Choć padał deszcz,⟩ | mecz rozegrano do końca.",
    ),
    RelationGuide(
        "Condition", "warunek",
        "zależna podaje warunek, od którego zależy to, o czym mówi nadrzędna",
        "⟨Jeśli zdasz egzamin,⟩ | dostaniesz stypendium.",
    ),
    RelationGuide(
        "Contrast", "przeciwstawienie",
        "jednostki zestawiają dwie równorzędne sytuacje lub cechy, które się od siebie różnią",
        "Starszy brat jest spokojny, | ⟨a młodszy ciągle się kłóci⟩.",
    ),
    RelationGuide(
        "Elaboration", "uszczegółowienie",
        "zależna rozwija całą treść nadrzędnej: podaje szczegóły, wyjaśnia, dopowiada",
        "Firma zmieniła strategię. | ⟨Zamknęła trzy fabryki i otworzyła sklep internetowy.⟩",
    ),
    RelationGuide(
        "Entity-elaboration", "dopowiedzenie o osobie lub rzeczy",
        "zależna mówi więcej o jednej osobie lub rzeczy wymienionej w nadrzędnej (często zdanie z „który”)",
        "Spotkałem Annę, | ⟨która właśnie wróciła z Japonii⟩.",
    ),
    RelationGuide(
        "Exemplification", "przykład",
        "zależna podaje przykład tego, o czym ogólnie mówi nadrzędna",
        "W ogrodzie rosną drzewa owocowe, | ⟨na przykład jabłonie i grusze⟩.",
    ),
    RelationGuide(
        "Feedback dependence", "reakcja na wypowiedź",
        "zależna jest odpowiedzią rozmówcy na nadrzędną: potwierdzeniem, zaprzeczeniem, podziękowaniem (zwykle w dialogu)",
        "— Zamknij, proszę, okno. | ⟨— Dobrze.⟩",
    ),
    RelationGuide(
        "Formatting", "element układu tekstu",
        "zależna jest elementem układu, a nie toku wypowiedzi: tytułem, nagłówkiem, numerem punktu, datą, podpisem",
        "⟨Rozdział 2.⟩ | Historia miasta sięga XIII wieku.",
    ),
    RelationGuide(
        "Manner", "sposób",
        "zależna mówi, w jaki sposób albo za pomocą czego dzieje się to, o czym mówi nadrzędna",
        "Otworzył drzwi, | ⟨używając śrubokręta⟩.",
    ),
    RelationGuide(
        "Metatext", "metatekst",
        "zależna mówi o samym tekście lub o sposobie mówienia (zapowiada, porządkuje, podsumowuje), a nie o świecie",
        "⟨Krótko mówiąc,⟩ | projekt się nie udał.",
    ),
    RelationGuide(
        "Purpose", "cel",
        "zależna podaje cel działania opisanego w nadrzędnej",
        "Wstał wcześnie, | ⟨żeby zdążyć na pociąg⟩.",
    ),
    RelationGuide(
        "Question-Answer", "pytanie i odpowiedź",
        "jedna jednostka stawia pytanie, druga na nie odpowiada",
        "Dlaczego ceny rosną? | ⟨Głównie z powodu drogiej energii.⟩",
    ),
    RelationGuide(
        "Repetition", "powtórzenie",
        "zależna powtarza (dosłownie lub prawie dosłownie) treść nadrzędnej, np. dla podkreślenia",
        "Nigdy się nie poddamy, | ⟨nigdy!⟩",
    ),
    RelationGuide(
        "Sequence-Elaboration", "następstwo",
        "zależna opisuje kolejne zdarzenie lub krok, który następuje po zdarzeniu z nadrzędnej i ciągnie ten sam wątek",
        "Najpierw umyj warzywa, | ⟨potem pokrój je w kostkę⟩.",
    ),
    RelationGuide(
        "Similarity", "podobieństwo",
        "jednostki przedstawiają dwie sytuacje lub cechy jako podobne",
        "Ojciec był lekarzem, | ⟨podobnie jak dziadek⟩.",
    ),
    RelationGuide(
        "Substitution", "zastąpienie",
        "jedna jednostka mówi, co zachodzi zamiast sytuacji z drugiej, która nie zachodzi",
        "⟨Zamiast odpocząć,⟩ | pracował do nocy.",
    ),
)
