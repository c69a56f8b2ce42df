<#
.SYNOPSIS
  Builds the Windows bundle: dist\tapediag\ (tapediag.exe, tapediag-cli.exe) and
  dist\tapediag-VERSION-windows-x64.zip.

.DESCRIPTION
  Run on 64-bit Windows 10/11 from the repository root, in PowerShell:

    # once: Python 3.11 (64-bit, python.org) and "Microsoft C++ Build Tools"
    # (the C helpers native\src\_*.c are compiled by setup.py)
    # 1. the sg3_utils DLL, cross-built on Debian or in WSL (Debian), then copied here:
    #      bash packaging/build-windows-dll.sh      ->  dist/windows-dll/
    # 2. the bundle:
    powershell -ExecutionPolicy Bypass -File packaging\build-windows.ps1

  With WSL installed and no dist\windows-dll yet, step 1 is run through `wsl` for you.
  The script creates .venv (if missing), installs tapediag with the gui and bundle
  extras, builds the C helpers, renders the icon, runs PyInstaller on
  packaging\tapediag-windows.spec, checks the result and zips it.
#>
param(
    [string]$DllDir = "dist\windows-dll",
    [string]$Python = "py -3.11"
)
$ErrorActionPreference = "Stop"
Set-Location (Split-Path -Parent $PSScriptRoot)
$start = Get-Date

function Invoke-Checked([string]$What, [scriptblock]$Block) {
    Write-Host "build-windows: $What"
    & $Block
    if ($LASTEXITCODE -ne 0) { throw "build-windows: failed: $What (exit $LASTEXITCODE)" }
}

if (-not (Get-ChildItem -Path $DllDir -Filter "libsgutils2-*.dll" -ErrorAction SilentlyContinue)) {
    if (Get-Command wsl -ErrorAction SilentlyContinue) {
        Invoke-Checked "building the sg3_utils DLL in WSL" { wsl bash packaging/build-windows-dll.sh }
    } else {
        throw "build-windows: no libsgutils2-*.dll in $DllDir. Build it on Debian (or WSL) with: bash packaging/build-windows-dll.sh, then copy dist/windows-dll here."
    }
}

if (-not (Test-Path ".venv\Scripts\python.exe")) {
    Invoke-Checked "creating .venv" { Invoke-Expression "$Python -m venv .venv" }
}
$py = ".venv\Scripts\python.exe"
# pyproject.toml's build requirements (setuptools>=77 reads its SPDX licence; a Python
# 3.11 venv ships an older setuptools) -- setup.py build_ext below runs in this venv.
$buildReqs = & $py -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['build-system']['requires']))"
Invoke-Checked "installing the build requirements" { & $py -m pip install -q $buildReqs }
Invoke-Checked "installing tapediag with the gui and bundle extras" { & $py -m pip install -q -e ".[gui,bundle]" }
Invoke-Checked "building the C helpers" { & $py setup.py -q build_ext --inplace }
Invoke-Checked "rendering the icon" { & $py packaging\render_icons.py build\icons }

$env:TAPEDIAG_WINDOWS_DLL_DIR = (Resolve-Path $DllDir).Path
Invoke-Checked "running PyInstaller" {
    & $py -m PyInstaller --noconfirm --clean --log-level WARN --distpath dist --workpath build\pyinstaller packaging\tapediag-windows.spec
}

$bundle = "dist\tapediag"
foreach ($file in @("tapediag.exe", "tapediag-cli.exe", "_internal\licenses\sg3_utils-BSD_LICENSE.txt")) {
    if (-not (Test-Path "$bundle\$file")) { throw "build-windows: $bundle\$file is missing" }
}
if (-not (Get-ChildItem "$bundle\_internal" -Filter "libsgutils2-*.dll")) { throw "build-windows: the sg3_utils DLL is not in the bundle" }

# Smoke test: the command line works from the bundle with the virtual drive.
Invoke-Checked "smoke test: tapediag-cli info virtual:lto6 --json" { & "$bundle\tapediag-cli.exe" info virtual:lto6 --json | Out-Null }

$version = & $py -c "import app; print(app.__version__)"
$zip = "dist\tapediag-$version-windows-x64.zip"
if (Test-Path $zip) { Remove-Item $zip }
Compress-Archive -Path $bundle -DestinationPath $zip
$size = "{0:N0} MB" -f ((Get-ChildItem $bundle -Recurse | Measure-Object Length -Sum).Sum / 1MB)
Write-Host ("build-windows: done in {0:N0} s; bundle {1} ({2}); archive {3}" -f ((Get-Date) - $start).TotalSeconds, $bundle, $size, $zip)
