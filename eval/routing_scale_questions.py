"""Analyst-style development queries for routing at EDGAR scale (issue 35), written for this project.

Each query names its gold companies by their ticker in the scale corpus (`finrag.eval.routing_scale_corpus`: the
development corpus's ticker, else the registrant's first ticker in the SEC's list); none for a company the index
does not hold or a question about no company. The written queries (`WRITTEN`, by category) are terse, as analysts
type them: abbreviations ("Net inc.", "rev", "mgmt", "comp", "dist", "div"), English words and finance
abbreviations that are also somebody's ticker (NET, COMP, CF, ASR, DEC, FOR, MA, BK, ALL, KEY ...), once meant as
the word and once written as a ticker ("$COMP", "(NET)", "ticker FOR"), famous names that start a smaller
registrant's name (Coca-Cola and Coca-Cola Consolidated, Lululemon and Lulu's Fashion Lounge, Chubb (CB) and CB
Financial Services), share classes of one registrant (GOOG/GOOGL, FOX/FOXA, NWS/NWSA, BRK.A/BRK.B), nicknames
and former names (Waste Mgmt, PSEG, BNY Mellon, Facebook, Anthem), comparisons ("X vs Y", "X compared with Y",
"X and Y") and companies no registrant is (private, gone or made up). `market_questions` adds plain questions
about registrants drawn from the whole SEC list (seeded), named as an analyst would: "$TICK", "Name (TICK)",
"ticker TICK", the name alone.

    python -m finrag.eval.routing_scale_questions            # (re)write eval/data/routing_scale_dev.jsonl
"""
from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path
from typing import Sequence

__all__ = ["QUESTIONS_FILE", "WRITTEN", "load_scale_questions", "market_questions", "scale_questions"]

QUESTIONS_FILE = Path(__file__).resolve().parent / "data" / "routing_scale_dev.jsonl"

WRITTEN: dict[str, str] = {
    # one company, abbreviations in the question; none of them is a company
    "abbreviation": """
Net inc. % chg vs diluted EPS, Honeywell FY22-23 | HON
Net inc. attributable to common, Pfizer 2023 | PFE
Caterpillar: Net inc. bridge 2022 to 2023 | CAT
Net inc margin Adobe FY2024 | ADBE
NKE rev mix by channel FY24 | NKE
Rev by geography Qualcomm 2023 | QCOM
Rev. growth ex-FX, Colgate 2022 | CL
Deere rev mix evol 2021-24 | DE
Mgmt's view on pricing, Hershey 2023 | HSY
mgmt commentary on capex, Union Pacific FY23 | UNP
Mgmt comp plan changes at Tesla 2023 | TSLA
exec comp mix Starbucks FY2022 | SBUX
Comp sales Target 2023 | TGT
Comp. store sales TJX FY24 | TJX
Comp losses and claims ratio, Travelers 2023 | TRV
workers comp reserves Chubb 2022 | CB
Dist. costs as % of sales, Sysco FY2023 | SYY
dist network investments Walmart FY24 | WMT
Div. payout ratio Coca-Cola 2023 | KO
div per share growth, Realty Income 2022 | O
Div. coverage Verizon 2024 | VZ
Oracle opex evol. FY22-FY24 | ORCL
Nike GM expansion FY2023 | NKE
Lowe's GM% and SG&A 2022 | LOW
Costco CF from ops FY24 | COST
CF conversion at Apple 2023 | AAPL
Home Depot ASR in fiscal 2023 | HD
Chubb (CB) Net inc. 2023 | CB
Pepsi ASR and div plans 2024 | PEP
AutoZone buybacks Dec 2023 | AZO
Microsoft DEC 2023 quarter rev | MSFT
State Street HQ MA tax credits 2023 | STT
Boston Scientific MA and MN headcount 2023 | BSX
Thermo Fisher NET debt / EBITDA 2023 | TMO
NET debt at Ford 2023 | F
Comcast FCF and NET leverage 2022 | CMCSA
Cisco NET income FY2023 | CSCO
Altria div. yield 2024 | MO
UNH mgmt guidance FY2024 EPS | UNH
AMZN AWS rev growth 2023 | AMZN
FedEx opex/rev FY23 | FDX
Intel inventory evol FY22 | INTC
IBM IT services rev 2022 | IBM
Meta AI capex 2024 | META
Alphabet HR costs and headcount 2023 | GOOGL
Salesforce ARR and NRR FY24 | CRM
Goldman NII 2023 | GS
JPM NIM and NII 2024 | JPM
Exxon LTM EBITDA 2023 | XOM
Chevron OI margin 2022 | CVX
Duke Energy NI 2023 | DUK
Kroger GP and OM FY2023 | KR
Marriott RevPAR evol 2022-24 | MAR
Exp. ratio Progressive 2023 | PGR
Disney DTC opex 2023 | DIS
Netflix content amort. vs cash spend 2023 | NFLX
Amgen intl rev 2023 | AMGN
Broadcom (AVGO) semis rev mix FY24 | AVGO
Lilly mfg capex 2024 | LLY
PG&E wildfire liab. 2023 | PCG
McDonald's sys-wide sales growth 2023 | MCD
Boeing BCA deliveries 2023 | BA
3M PFAS liab. 2023 | MMM
Danaher BioPharma rev decline 2023 | DHR
GE CFO and FCF 2023 | GE
Abbott diag. rev post-COVID 2023 | ABT
UPS Comp. hourly wages 2023 | UPS
CVS PBM rev 2022 | CVS
Humana MLR 2023 | HUM
Chipotle restaurant-level OM 2023 | CMG
Merck COMP expense 2023 | MRK
Comcast comp and ben expense 2023 | CMCSA
DIST. centers capex Dollar General 2023 | DG
REV growth Adobe FY2024 | ADBE
EVOL of margins at Intel 2021-2023 | INTC
Delta NET income 2023 | DAL
Verizon NET adds 2023 | VZ
Boeing supplier BK risk 2023 | BA
Dec 2023 cash balance, Nvidia | NVDA
AMD DEC 2023 inventory | AMD
General Motors ASR completed Dec 2023 | GM
Apple ASR vs open market buybacks 2023 | AAPL
Johnson Controls AI data center orders 2024 | JCI
HR-related restructuring at Salesforce FY2024 | CRM
PR crisis costs at Boeing 2024 | BA
IR day targets Caterpillar 2022 | CAT
FIVE largest customers of Micron FY2023 | MU
SAFE harbor language in Oracle 10-K 2023 | ORCL
ALL segments op income Honeywell 2024 | HON
ON a constant currency basis, McDonald's revenue 2023 | MCD
KEY risks at Humana 2023 | HUM
CF sustainability at Coca-Cola 2023 | KO
Waste Management CF stability 2022 | WM
MA ruling on Uber drivers 2024 | UBER
Eversource MA rate case 2023 | ES
Target: CASH and equivalents FY2023 | TGT
Vertex Pharmaceuticals (VRTX) CF franchise revenue 2023 | VRTX
""",
    # a word or abbreviation that is somebody's ticker, written as a ticker (or with its company's name)
    "word_ticker": """
$NET revenue growth 2024 | NET
Cloudflare (NET) large customers 2024 | NET
ticker NET: dollar-based net retention FY2024 | NET
$COMP gross transaction value 2024 | COMP
Compass (COMP) agent count 2024 | COMP
Forestar (FOR) lots delivered FY2024 | FOR
$FOR backlog 2024 | FOR
Diversified Energy (DEC) production 2024 | DEC
$ASR passenger traffic 2024 | ASR
Southeast Airport Group (ASR) revenue 2024 | ASR
$CF nitrogen volumes 2024 | CF
CF Industries ammonia capex 2023 | CF
Walker & Dunlop (WD) loan originations 2024 | WD
$WD servicing portfolio 2024 | WD
Pathward (CASH) deposits 2024 | CASH
$CASH net interest margin 2024 | CASH
Opendoor (OPEN) homes sold 2024 | OPEN
$OPEN gross margin 2024 | OPEN
Sunrun (RUN) subscribers 2024 | RUN
ticker PLAY: Dave & Buster's comparable sales 2024 | PLAY
Five Below (FIVE) new stores FY2024 | FIVE
$SAFE ground lease portfolio 2024 | SAFE
Welltower (WELL) SHOP NOI 2024 | WELL
Sweetgreen (SG) restaurant margin 2024 | SG
$AI subscription revenue FY2024 | AI
C3.ai (AI) customer count 2024 | AI
Bio-Techne (TECH) organic growth FY2024 | TECH
Box (BOX) RPO 2024 | BOX
Avis Budget (CAR) fleet costs 2024 | CAR
ticker GOOD: Gladstone Commercial occupancy 2024 | GOOD
$FAST daily sales 2024 | FAST
Fastenal FAST onsite signings 2024 | FAST
$MA cross-border volume growth 2023 | MA
BK net interest revenue 2023 | BK
Gartner (IT) contract value 2023 | IT
ON Semiconductor SiC revenue 2023 | ON
$ON auto revenue 2024 | ON
Enact (ACT) insurance in force 2024 | ACT
O-I Glass (OI) shipments 2024 | OI
NiSource (NI) rate base 2024 | NI
Healthcare Realty (HR) occupancy 2024 | HR
Regency Centers (REG) same-property NOI 2024 | REG
Eagle Materials (EXP) cement volumes FY2024 | EXP
Permian Resources (PR) production 2024 | PR
Ingersoll Rand (IR) orders 2024 | IR
Philip Morris (PM) smoke-free revenue share 2023 | PM
Antero Midstream (AM) gathering volumes 2024 | AM
AutoNation (AN) used vehicle gross profit 2024 | AN
Bloom Energy (BE) product revenue 2024 | BE
Cigna (CI) medical care ratio 2023 | CI
CI revenue growth 2024 | CI
Cooper Cos (COO) CooperVision growth FY2024 | COO
COO revenue growth FY2023 | COO
AT&T (T) wireless churn 2023 | T
T's FCF guidance 2024 | T
T postpaid phone net adds 2024 | T
PEG capex plan 2024 | PEG
GM EV capex 2024 | GM
GM Cruise losses 2023 | GM
KEY net interest income 2024 | KEY
""",
    # a famous name that begins a smaller registrant's name, and that registrant named in full
    "prefix": """
Coca-Cola pricing vs volume 2023 | KO
Coke pricing power 2024 | KO
KO's concentrate pricing 2023 | KO
Coca-Cola Consolidated physical case volume 2024 | COKE
Coca-Cola Europacific Partners revenue 2024 | CCEP
Coca-Cola FEMSA Mexico volumes 2024 | KOF
Apple services margin FY2024 | AAPL
Apple Hospitality REIT RevPAR 2024 | APLE
Marriott franchise fees 2023 | MAR
Marriott Vacations contract sales 2024 | VAC
Hilton net unit growth 2024 | HLT
Hilton Grand Vacations tour flow 2024 | HGV
Huntington (HBAN) deposit costs 2024 | HBAN
Huntington Ingalls shipbuilding margin 2024 | HII
Southwest Airlines CASM ex-fuel 2023 | LUV
Southwest Gas customer growth 2024 | SWX
Target digital sales 2023 | TGT
Target Hospitality (TH) utilization 2024 | TH
Goldman Sachs trading rev 2023 | GS
Goldman Sachs BDC non-accruals 2024 | GSBD
Morgan Stanley wealth mgmt margin 2023 | MS
Morgan Stanley Direct Lending Fund NII 2024 | MSDL
Williams-Sonoma (WSM) merch margin FY2024 | WSM
Williams pipeline volumes 2023 | WMB
Citi Trends comps FY2024 | CTRN
Citi markets revenue 2023 | C
Xcel rate base 2024 | XEL
Fox Factory (FOXF) OEM sales 2024 | FOXF
Fox Corp Tubi revenue FY2024 | FOXA
Lululemon gross margin FY2024 | LULU
LULU's inventory growth FY2024 | LULU
LULU Americas revenue FY2024 | LULU
Lulu's Fashion Lounge (LVLU) active customers 2024 | LVLU
Chubb (CB) P&C combined ratio 2023 | CB
CB Financial Services (CBFV) deposits 2024 | CBFV
PTC ARR growth FY2024 | PTC
PTC Therapeutics (PTCT) product revenue 2024 | PTCT
Emerson (EMR) software revenue FY2024 | EMR
Emerson Radio revenue FY2024 | MSN
Rockwell Automation (ROK) orders FY2024 | ROK
Rockwell Medical revenue 2024 | RMTI
ADM ag services margin 2023 | ADM
J&J pharma sales 2023 | JNJ
J&J Snack Foods frozen beverages FY2024 | JJSF
Universal Health Realty (UHT) FFO 2024 | UHT
Universal Health Services (UHS) admissions 2023 | UHS
Texas Instruments analog revenue 2023 | TXN
Texas Pacific Land royalties 2024 | TPL
General Mills (GIS) pet segment FY2024 | GIS
General Dynamics Gulfstream deliveries 2023 | GD
American Express card fees 2023 | AXP
American Airlines (AAL) unit revenue 2024 | AAL
Western Digital flash revenue FY2024 | WDC
WDC HDD exabytes FY2024 | WDC
Meta Reality Labs losses 2023 | META
Vertex, Inc. (VERX) software subscription revenue 2024 | VERX
Eaton (ETN) data center orders 2024 | ETN
BlackRock (BLK) AUM 2023 | BLK
Invesco (IVZ) AUM 2024 | IVZ
Prudential Financial (PRU) PGIM flows 2023 | PRU
Block's Cash App gross profit 2024 | XYZ
""",
    # share classes of one registrant are one company
    "share_class": """
GOOG vs GOOGL buybacks 2023 | GOOGL
GOOGL Cloud operating income 2024 | GOOGL
GOOG capex 2024 | GOOGL
Alphabet Class C (GOOG) share repurchases 2022 | GOOGL
FOX and FOXA dividends FY2024 | FOXA
FOX affiliate fees FY2023 | FOXA
NWS vs NWSA voting rights 2024 | NWSA
News Corp (NWSA) Dow Jones revenue FY2024 | NWSA
NWS Dow Jones segment EBITDA FY2024 | NWSA
BRK.A vs BRK.B book value per share 2023 | BRK.B
Berkshire (BRK.B) insurance float 2023 | BRK.B
BRK.A operating earnings 2024 | BRK.B
UA and UAA wholesale revenue FY2024 | UAA
Under Armour (UAA) gross margin FY2024 | UAA
Zillow (Z) rentals revenue 2024 | ZG
ZG vs Z share count 2024 | ZG
LEN home deliveries FY2024 | LEN
Lennar (LEN.B) new orders FY2024 | LEN
HEICO (HEI.A) flight support margin FY2024 | HEI
Brown-Forman (BF.B) depletions FY2024 | BF.A
Liberty Broadband (LBRDK) Charter stake value 2024 | LBRDA
""",
    # nicknames and former names (the alias table)
    "alias": """
Waste Mgmt landfill pricing 2023 | WM
Waste Mgt collection volumes 2022 | WM
PSEG nuclear output 2023 | PEG
PSEG (PEG) rate base growth 2024 | PEG
PSE&G rate base 2024 | PEG
ConEd steam revenue 2023 | ED
BNY Mellon AUC 2023 | BK
BNY net interest revenue 2024 | BK
Labcorp testing volumes 2023 | LH
Big Blue software revenue 2023 | IBM
Facebook ad impressions 2022 | META
Google Cloud revenue 2023 | GOOGL
Raytheon Technologies Pratt charge 2023 | RTX
Anthem medical membership 2021 | ELV
Kellogg snacks growth 2023 | K
AmerisourceBergen revenue FY2022 | COR
Fleetcor fuel card revenue 2022 | CPAY
Healthpeak (PEAK) lab occupancy 2023 | DOC
Healthpeak MOB NOI 2024 | DOC
PerkinElmer diagnostics revenue 2022 | RVTY
Square (SQ) Cash App inflows 2022 | XYZ
ViacomCBS streaming subscribers 2021 | PARA
Cabot Oil & Gas production 2021 | CTRA
Wal-Mart international sales FY2023 | WMT
Autodesk (ADSK) billings FY2024 | ADSK
AUTDSK ARR FY2024 | ADSK
BofA NII 2023 | BAC
Amex billed business 2023 | AXP
J.P. Morgan markets revenue 2022 | JPM
Schwab client assets 2023 | SCHW
Lockheed F-35 sales 2023 | LMT
Exxon upstream earnings 2023 | XOM
P&G organic sales FY2024 | PG
onsemi automotive revenue 2023 | ON
Lulu inventory days FY2024 | LULU
""",
    # several companies, with a comparison cue
    "multi": """
KO vs PEP marketing spend 2023 | KO, PEP
Coca-Cola compared with Coca-Cola Consolidated gross margin 2024 | KO, COKE
Lululemon vs Lulu's Fashion Lounge gross margin 2024 | LULU, LVLU
NET vs AKAM revenue growth 2024 | NET, AKAM
Cloudflare and Akamai security revenue 2024 | NET, AKAM
Compass vs Zillow revenue 2024 | COMP, ZG
Zillow and Opendoor margins 2024 | ZG, OPEN
Visa and Mastercard cross-border growth 2023 | V, MA
V vs MA net revenue 2023 | V, MA
HD vs LOW comp sales 2023 | HD, LOW
Home Depot compared with Lowe's gross margin 2022 | HD, LOW
GM vs F EV losses 2023 | GM, F
Ford versus GM pension 2022 | F, GM
Chubb vs Travelers combined ratio 2023 | CB, TRV
CB and TRV cat losses 2023 | CB, TRV
Cigna vs Humana MLR 2023 | CI, HUM
CI and ELV membership 2024 | CI, ELV
Marriott vs Hilton RevPAR growth 2023 | MAR, HLT
Hilton Grand Vacations vs Marriott Vacations VOI sales 2024 | HGV, VAC
Goldman Sachs relative to Morgan Stanley wealth revenue 2023 | GS, MS
Fox Corp vs News Corp advertising revenue FY2024 | FOXA, NWSA
FOXA vs NWSA EBITDA FY2024 | FOXA, NWSA
Western Digital and Seagate HDD revenue FY2024 | WDC, STX
WDC vs STX gross margin FY2024 | WDC, STX
Nvidia, AMD and Intel data center revenue 2023 | NVDA, AMD, INTC
Pfizer vs Merck R&D 2023 | PFE, MRK
Walmart versus Costco membership income FY2024 | WMT, COST
Waste Mgmt vs Republic Services pricing 2023 | WM, RSG
PSEG vs ConEd rate base 2023 | PEG, ED
Healthpeak vs Welltower occupancy 2024 | DOC, WELL
DoorDash vs Uber delivery take rate 2024 | DASH, UBER
Snowflake compared with Datadog net retention FY2024 | SNOW, DDOG
Chubb (CB), Travelers (TRV) and Allstate (ALL) reserves 2023 | CB, TRV, ALL
ON vs NXPI auto revenue 2023 | ON, NXPI
BK and STT custody fees 2024 | BK, STT
CF Industries vs Mosaic margins 2023 | CF, MOS
Sunrun vs Enphase residential demand 2024 | RUN, ENPH
Compass (COMP) vs Redfin agent productivity 2024 | COMP
""",
    # companies no registrant is: private, gone, or made up
    "not_indexed": """
Cargill revenue 2023 |
Koch Industries capex 2022 |
Mars Inc. pet care sales 2023 |
SpaceX Starlink revenue 2024 |
Stripe payment volume 2023 |
Publix same-store sales 2023 |
Bloomberg LP terminal revenue 2023 |
Chick-fil-A sales 2023 |
Deloitte revenue FY2024 |
Twitter ad revenue 2022 |
Activision Blizzard net bookings 2022 |
Silicon Valley Bank deposits 2022 |
First Republic deposit outflows 2023 |
Marathon Oil (MRO) production 2023 |
Zorblax Corporation EBITDA 2023 |
$ZQXV gross margin 2024 |
Quillon Biotherapeutics R&D 2024 |
Fidelity Investments AUM 2023 |
ByteDance revenue 2023 |
Epic Games revenue 2023 |
Trader Joe's sales 2023 |
Vanguard Group AUM 2024 |
Huawei revenue 2023 |
Kelmscott Energy Corp. capex 2024 |
""",
    # no company at all
    "no_company": """
what is an ASR and how is it accounted for |
median NET margin of SaaS companies 2023 |
CF vs NI conversion for REITs 2022 |
average COMP sales growth for US retailers 2023 |
how do REITs report FFO vs AFFO |
typical DSO for industrials 2023 |
ON a GAAP basis, what is EBITDA? |
Dec 2023 CPI print impact on bank NIM |
GM% benchmarks for apparel retailers |
Net inc. vs OCF gap explained |
rev recognition under ASC 606 for SaaS |
mgmt comp disclosure rules 2023 |
dist. centers automation capex trends |
which companies did the largest ASR in 2023 |
ALL the banks with NIM above 3% in 2024 |
AI capex by hyperscalers 2024 |
IT spending growth across software companies 2024 |
EV capex plans of automakers 2024 |
""",
}

_METRICS = ["revenue", "net income", "operating margin", "capex", "free cash flow", "diluted EPS", "total debt",
            "gross margin", "R&D expense", "SG&A", "cash and equivalents", "dividends paid", "segment revenue",
            "Net inc.", "rev growth", "opex", "headcount", "goodwill", "inventory", "deferred revenue"]
_FORMS = ["${t} {m} 2024", "{n} ({t}) {m} FY2024", "ticker {t}: {m} 2024", "{n} {m} 2024", "{m} for {n} in 2024",
          "{n}'s {m} 2024", "{t} {m} FY24", "{m} 2024 {n} ({t})"]
_LEGAL_TAIL = re.compile(r"(?i)(?:[\s,]+(?:inc|corp|corporation|co|company|ltd|limited|plc|llc|l\.?p|n\.?v|"
                         r"s\.?a|ag|se|/[a-z]{2,}/?))+\.?\s*$")


def _spoken_name(legal: str) -> str:
    """How an analyst writes a registrant's name: legal tail off, capitals only for short acronyms."""
    name = _LEGAL_TAIL.sub("", re.sub(r"^(?i:the)\s+", "", legal.strip())).strip(" ,.") or legal
    if any(c.islower() for c in name):
        return name
    return " ".join(w if len(re.sub(r"[^A-Z]", "", w)) <= 3 else w[:1] + w[1:].lower() for w in name.split())


def market_questions(companies: Sequence, n: int = 150, seed: int = 35) -> list[dict]:
    """Plain questions about `n` registrants outside the development corpus, drawn from `companies`
    (`ScaleCompany`, seeded): one named company each, in one of the ways analysts name companies."""
    r = random.Random(seed)
    pool = [c for c in companies if not c.dev and re.fullmatch(r"[A-Z]{2,5}", c.ticker)]
    spoken = [re.findall(r"\w+", _spoken_name(c.bench.legal).lower()) for c in companies]
    out = []
    for c in r.sample(pool, min(n, len(pool))):
        form = r.choice(_FORMS)
        words = re.findall(r"\w+", _spoken_name(c.bench.legal).lower())
        if "{t}" not in form and sum(s[:len(words)] == words for s in spoken) > 1:
            form = "{n} ({t}) {m} FY2024"  # the name alone would also name another registrant: its ticker too
        q = form.format(t=c.ticker, n=_spoken_name(c.bench.legal), m=r.choice(_METRICS)).replace("s's ", "s' ")
        out.append({"question": q, "category": "market", "gold_tickers": [c.ticker]})
    return out


def written_questions() -> list[dict]:
    out = []
    for category, block in WRITTEN.items():
        for line in block.strip().splitlines():
            q, _, gold = line.rpartition("|")
            out.append({"question": q.strip(), "category": category,
                        "gold_tickers": [g.strip() for g in gold.split(",") if g.strip()]})
    return out


def scale_questions(companies: Sequence) -> list[dict]:
    """Every development query (written, then market-wide), each with an id."""
    qs = [*written_questions(), *market_questions(companies)]
    return [{"id": f"{q['category']}-{i:03d}", **q} for i, q in enumerate(qs)]


def load_scale_questions(path: Path = QUESTIONS_FILE) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def main(argv: Sequence[str] | None = None) -> int:
    from finrag.eval.routing_scale_corpus import all_scale_companies

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(QUESTIONS_FILE))
    args = ap.parse_args(argv)
    qs = scale_questions(all_scale_companies())
    Path(args.out).write_text("".join(json.dumps(q) + "\n" for q in qs), encoding="utf-8")
    print(f"{len(qs)} questions -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
